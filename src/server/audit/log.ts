/**
 * The log backend (the reference's plugin/pkg/audit/log, `--audit-log-*`): each event one
 * line, `json` (the Event's JSON) or `legacy` (its one-line text), to the file of
 * `--audit-log-path` with rotation (rotating-file.ts) or to standard output for `-`. A line
 * that cannot be written is reported (apiserver_audit_error_total{plugin="log"}) and the
 * backend answers false, which fails the request in blocking-strict mode. The modes and
 * truncation wrap it (mode.ts).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import type { AuditLogConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { AuditBackend } from './backend.js'
import type { AuditEvent } from './event.js'
import { eventJson } from './event-json.js'
import { eventString } from './event-string.js'
import { type AuditBackendOptions, backendOptions, wrapBackend } from './mode.js'
import type { PluginErrorHandler } from './plugin-error.js'
import { RotatingFile } from './rotating-file.js'

export const LOG_PLUGIN = 'log'

/** Where lines go. */
export interface LineWriter {
  write(line: string): void
  /** The lines, each followed by a newline, as one write; without it, `write` of them joined. */
  writeLines?(lines: readonly string[]): void
  close(): Promise<void>
}

export class LogBackend implements AuditBackend {
  readonly name = LOG_PLUGIN

  constructor(
    private readonly out: LineWriter,
    private readonly format: 'json' | 'legacy',
    private readonly onError: PluginErrorHandler,
  ) {}

  processEvents(...events: AuditEvent[]): boolean {
    // A batch is one write (one system call); a failed one is retried line by line, so that
    // only the lines that cannot be written are lost and reported.
    if (events.length > 1) {
      try {
        const lines = events.map((event) => this.line(event))
        if (this.out.writeLines) this.out.writeLines(lines)
        else this.out.write(lines.map((line) => `${line}\n`).join(''))
        return true
      } catch {
        // Line by line below.
      }
    }
    let ok = true
    for (const event of events) ok = this.logEvent(event) && ok
    return ok
  }

  private line(event: AuditEvent): string {
    return this.format === 'legacy' ? eventString(event) : eventJson(event)
  }

  private logEvent(event: AuditEvent): boolean {
    try {
      this.out.write(`${this.line(event)}\n`)
      return true
    } catch (err) {
      this.onError(LOG_PLUGIN, (err as Error).message, [event])
      return false
    }
  }

  run(): void {}

  async shutdown(): Promise<void> {
    await this.out.close()
  }
}

/** Standard output (`--audit-log-path=-`). */
const STDOUT: LineWriter = {
  write: (line) => void process.stdout.write(line),
  close: async () => {},
}

/**
 * The log backend of `--audit-log-*`, checked as the reference's AuditLogOptions.Validate
 * (its messages) and wrapped in its mode and truncation.
 */
export function logBackendFromConfig(config: AuditLogConfig, onError: PluginErrorHandler): AuditBackend {
  const options = validLogOptions(config)
  const out = config.path === '-' ? STDOUT : fileWriter(config)
  return wrapBackend(new LogBackend(out, config.format, onError), options, onError)
}

/** The `--audit-log-*` options checked (AuditLogOptions.Validate), as the mode and truncation take them. */
export function validLogOptions(config: AuditLogConfig): AuditBackendOptions {
  const options = backendOptions(LOG_PLUGIN, config, false)
  for (const [flag, value] of [
    ['--audit-log-maxage', config.maxAgeDays],
    ['--audit-log-maxbackup', config.maxBackups],
    ['--audit-log-maxsize', config.maxSizeMb],
  ] as const) {
    if (value < 0) throw new StartupError(`${flag} ${value} can't be a negative number`)
  }
  return options
}

function fileWriter(config: AuditLogConfig): LineWriter {
  const path = config.path!
  ensureLogFile(path)
  return new RotatingFile({ path, maxSizeMb: config.maxSizeMb, maxAgeDays: config.maxAgeDays, maxBackups: config.maxBackups, compress: config.compress })
}

/** The reference's ensureLogFile: the directory (0700) and the file (0600) exist before the first event. */
export function ensureLogFile(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    closeSync(openSync(path, 'a', 0o600))
  } catch (err) {
    throw new StartupError(`ensureLogFile: ${goFsError(err as NodeJS.ErrnoException)}`)
  }
}

/** Go's *PathError text: `open <path>: permission denied`. */
function goFsError(err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = { ENOENT: 'no such file or directory', EACCES: 'permission denied', ENOTDIR: 'not a directory', EISDIR: 'is a directory', EROFS: 'read-only file system' }
  const op = err.syscall === 'mkdir' ? 'mkdir' : 'open'
  return `${op} ${err.path ?? ''}: ${why[err.code ?? ''] ?? err.message}`
}
