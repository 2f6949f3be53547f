/**
 * What `client health check` and `client health watch` do once their flags are parsed:
 * connect as the general client options say, probe, print, and return the exit code.
 */
import { type ClientFlags } from '../client/flags.js'
import { ClientConfigError } from '../client/errors.js'
import { RestClient } from '../client/rest-client.js'
import { resolveConnection } from '../client/connection.js'
import { parseGoDuration } from '../options/go-syntax.js'
import { listChecks, probe, waitUntilHealthy } from './probe.js'
import { toJson, toText } from './render.js'
import { EXIT_CODES, type HealthEndpoint, exitCodeOf } from './report.js'
import { createLineWriter, formatSnapshot, snapshotExitCode } from './watch-lines.js'
import { probeOnce, runWatch } from './watch-loop.js'

export interface Output {
  out(text: string): void
  err(text: string): void
  isTTY: boolean
  /** Printed under a usage error: `See 'client health check --help' for usage.` */
  usageHint?: string
}

export class HealthUsageError extends Error {
  constructor(
    message: string,
    /** Lines printed between the error and the hint. */
    readonly notes: readonly string[] = [],
  ) {
    super(message)
  }
}

export function durationFlag(name: string, text: string): number {
  try {
    const ms = parseGoDuration(/^\d+$/.test(text) ? `${text}s` : text)
    if (ms <= 0) throw new Error('must be positive')
    return ms
  } catch (err) {
    throw new HealthUsageError(`invalid --${name} ${JSON.stringify(text)}: ${(err as Error).message}`)
  }
}

function connect(flags: ClientFlags, version: string): { client: RestClient; server: string; warnings: string[] } {
  const connection = resolveConnection(flags, process.env, { version })
  return { client: new RestClient(connection), server: connection.server, warnings: connection.warnings }
}

/** Usage problems (flags, kubeconfig) print their message and exit 2, as the exit codes promise. */
async function usage(io: Output, run: () => Promise<number>): Promise<number> {
  try {
    return await run()
  } catch (err) {
    if (err instanceof ClientConfigError) {
      io.err(`${err.display}\n`)
      return EXIT_CODES.usage
    }
    if (err instanceof HealthUsageError) {
      io.err(`error: ${err.message}\n${err.notes.map((n) => `${n}\n`).join('')}${io.usageHint ? `${io.usageHint}\n` : ''}`)
      return EXIT_CODES.usage
    }
    throw err
  }
}

export interface CheckOptions {
  client: ClientFlags
  endpoint: HealthEndpoint
  verbose: boolean
  exclude: string[]
  check?: string
  wait: boolean
  timeout: string
  interval: string
  output: 'text' | 'json'
  version: string
}

export function runHealthCheck(options: CheckOptions, io: Output): Promise<number> {
  return usage(io, async () => {
    const timeoutMs = durationFlag('timeout', options.timeout)
    const intervalMs = durationFlag('interval', options.interval)
    const { client, server, warnings } = connect(options.client, options.version)
    for (const w of warnings) io.err(`Warning: ${w}\n`)
    try {
      const probeOptions = { endpoint: options.endpoint, check: options.check, exclude: options.exclude }
      const report = options.wait
        ? await waitUntilHealthy(client, { ...probeOptions, timeoutMs, intervalMs })
        : await probe(client, probeOptions)
      // A check the server does not have answers 404: that is a usage error, not a verdict.
      if (options.check && report.statusCode === 404) await refuseUnknownCheck(client, options.endpoint, options.check)
      io.out(options.output === 'json' ? `${JSON.stringify(toJson(server, report), null, 2)}\n` : toText(report, options.verbose))
      return exitCodeOf(report.verdict)
    } finally {
      client.close()
    }
  })
}

async function refuseUnknownCheck(client: RestClient, endpoint: HealthEndpoint, check: string): Promise<void> {
  const names = await listChecks(client, endpoint)
  if (names === undefined || names.includes(check)) return
  const asPath = new RegExp(`^/?(?:livez|readyz|healthz)/(.+)$`).exec(check)
  const notes = [`The server's ${endpoint} checks: ${names.join(', ')}`]
  if (asPath && names.includes(asPath[1]!)) notes.unshift(`--check takes a check's name: --check ${asPath[1]}`)
  throw new HealthUsageError(`unknown check ${JSON.stringify(check)} for /${endpoint}`, notes)
}

export interface WatchOptions {
  client: ClientFlags
  endpoints: HealthEndpoint[]
  exclude: string[]
  interval: string
  once: boolean
  version: string
}

export function runHealthWatch(options: WatchOptions, io: Output): Promise<number> {
  return usage(io, async () => {
    const intervalMs = durationFlag('interval', options.interval)
    const { client, server, warnings } = connect(options.client, options.version)
    for (const w of warnings) io.err(`Warning: ${w}\n`)
    const watchProbe = (endpoint: HealthEndpoint, exclude: string[]) => probe(client, { endpoint, exclude })
    try {
      if (options.once) {
        const reports = await probeOnce(watchProbe, options.endpoints, options.exclude)
        io.out(formatSnapshot(reports))
        return snapshotExitCode(reports)
      }
      const abort = new AbortController()
      const stop = () => abort.abort()
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
      try {
        if (!io.isTTY) {
          const handle = runWatch({ probe: watchProbe, endpoints: options.endpoints, intervalMs, exclude: options.exclude, signal: abort.signal, onState: createLineWriter((line) => io.out(`${line}\n`)) })
          await handle.done
          return 0
        }
        const version = await client.get('/version').then(
          (r) => (r.status === 200 ? (JSON.parse(r.body) as { gitVersion?: string }).gitVersion : undefined),
          () => undefined,
        )
        // The live view (ink and React) is loaded only here: `health check` and the line
        // output never draw it, and start faster without it.
        const { renderHealthWatch } = await import('../views/index.js')
        const handle = runWatch({ probe: watchProbe, endpoints: options.endpoints, intervalMs, exclude: options.exclude, signal: abort.signal })
        const app = renderHealthWatch({ server, version, store: handle, onQuit: stop })
        await Promise.race([app.waitUntilExit(), handle.done])
        stop()
        app.unmount()
        return 0
      } finally {
        process.removeListener('SIGINT', stop)
        process.removeListener('SIGTERM', stop)
      }
    } finally {
      client.close()
    }
  })
}
