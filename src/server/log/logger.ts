/**
 * The server's logger: the reference's text format, `-v` verbosity with `--vmodule`
 * overrides per file, buffered output flushed at most every --log-flush-frequency. It
 * also answers the `log` health check: logging is healthy while flushes succeed.
 */
import { basename } from 'node:path'
import { type Severity, callerSource, formatLine, sourceName } from './klog-format.js'

interface LoggerOptions {
  verbosity: number
  /** `pattern=N`: files whose base name (without extension) matches the glob log at level N. */
  vmodule: Record<string, string>
  flushFrequencyMs: number
  /** Where lines go; stderr by default. */
  sink?: NodeJS.WritableStream
  /** Microseconds since the epoch. */
  now?: () => number
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`)
}

/** A line not formatted yet: its source is named (through a source map) only when flushed. */
interface Pending {
  severity: Severity
  whenMicros: number
  source: string
  message: string
}

export class Logger {
  private buffer: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private lastFlushOk = Date.now()
  private flushError: Error | undefined
  private readonly sink: NodeJS.WritableStream
  private readonly modules: Array<[RegExp, number]>
  private readonly now: () => number

  constructor(private readonly options: LoggerOptions) {
    this.sink = options.sink ?? process.stderr
    this.now = options.now ?? (() => Math.floor((performance.timeOrigin + performance.now()) * 1000))
    this.modules = Object.entries(options.vmodule).map(([glob, level]) => [globToRegExp(glob), Number(level)])
    this.sink.on?.('error', (err: Error) => {
      this.flushError = err
    })
  }

  /** Whether a message at verbosity `level` from the caller's file would be logged. */
  enabled(level: number, source?: string): boolean {
    if (level <= this.options.verbosity) return true
    if (this.modules.length === 0) return false
    const file = basename(sourceName(source ?? callerSource(3)).split(':')[0]).replace(/\.[jt]s$/, '')
    const rule = this.modules.find(([pattern]) => pattern.test(file))
    return rule !== undefined && level <= rule[1]
  }

  info(message: string): void {
    this.write('I', message)
  }

  /** Logged only at `-v=level` or above (or by a matching --vmodule rule). */
  v(level: number, message: string): void {
    // Reading the caller from a stack trace is costly: only when a --vmodule rule may apply.
    if (level > this.options.verbosity && this.modules.length === 0) return
    const source = callerSource(2)
    if (this.enabled(level, source)) this.write('I', message, source)
  }

  warning(message: string): void {
    this.write('W', message)
  }

  error(message: string): void {
    this.write('E', message)
    // Errors are not left in the buffer: they may be the last thing a dying server says.
    this.flush()
  }

  private write(severity: Severity, message: string, source = callerSource(3)): void {
    this.buffer.push({ severity, whenMicros: this.now(), source, message })
    if (this.options.flushFrequencyMs <= 0) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.options.flushFrequencyMs).unref()
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.buffer.length === 0) {
      this.lastFlushOk = Date.now()
      return
    }
    const text = this.buffer.map((l) => formatLine(l.severity, l.whenMicros, process.pid, sourceName(l.source), l.message)).join('')
    this.buffer = []
    try {
      this.sink.write(text)
      this.lastFlushOk = Date.now()
    } catch (err) {
      this.flushError = err as Error
    }
  }

  /** The `log` health check: fails when the last flush failed or flushing has stalled. */
  async check(): Promise<void> {
    const failure = this.checkNow()
    if (failure !== null) throw new Error(failure)
  }

  /** The same check, answered at once: null when healthy, else the failure text. */
  checkNow(): string | null {
    this.flush()
    if (this.flushError) return `logging blocked: ${this.flushError.message}`
    if (Date.now() - this.lastFlushOk > 120_000) return 'logging blocked'
    return null
  }
}
