/**
 * One probe of a status endpoint, and polling until healthy: the logic of
 * `client health check`, independent of how requests are sent.
 */
import { type HealthEndpoint, type HealthReport, parseVerboseReport, probePath, verdictOf } from './report.js'

/** What a probe needs of a REST client: a GET that resolves with the answer or rejects when unreachable. */
export interface HealthTransport {
  get(path: string): Promise<{ status: number; body: string; latencyMs: number }>
}

export interface ProbeOptions {
  endpoint: HealthEndpoint
  /** Probe this one check (`/<endpoint>/<check>`) instead of the whole endpoint. */
  check?: string
  exclude?: readonly string[]
  now?: () => number
}

export async function probe(transport: HealthTransport, options: ProbeOptions): Promise<HealthReport> {
  const now = options.now ?? Date.now
  const path = probePath(options.endpoint, { check: options.check, exclude: options.exclude })
  const started = now()
  try {
    const reply = await transport.get(path)
    const { checks, warnings } = options.check ? { checks: [], warnings: [] } : parseVerboseReport(reply.body)
    return {
      endpoint: options.endpoint,
      path,
      statusCode: reply.status,
      verdict: verdictOf(reply.status),
      checks,
      warnings,
      body: reply.body,
      latencyMs: reply.latencyMs,
      at: now(),
    }
  } catch (err) {
    const message = (err as Error).message
    return { endpoint: options.endpoint, path, verdict: 'unreachable', checks: [], warnings: [], body: '', error: message, latencyMs: now() - started, at: now() }
  }
}

/** The names of an endpoint's checks, from its verbose report; undefined when the server does not list them. */
export async function listChecks(transport: HealthTransport, endpoint: HealthEndpoint): Promise<string[] | undefined> {
  try {
    const reply = await transport.get(`/${endpoint}?verbose`)
    const { checks } = parseVerboseReport(reply.body)
    return checks.length > 0 ? checks.map((c) => c.name) : undefined
  } catch {
    return undefined
  }
}

export interface WaitOptions extends ProbeOptions {
  timeoutMs: number
  intervalMs: number
  sleep?: (ms: number) => Promise<void>
  /** Told of every probe while waiting (for progress output). */
  onProbe?: (report: HealthReport) => void
}

/**
 * Probes until the endpoint is healthy or `timeoutMs` has passed; returns the last report
 * (healthy, or the last failure). A probe is never started after the deadline.
 */
export async function waitUntilHealthy(transport: HealthTransport, options: WaitOptions): Promise<HealthReport> {
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const deadline = now() + options.timeoutMs
  for (;;) {
    const report = await probe(transport, options)
    options.onProbe?.(report)
    if (report.verdict === 'healthy') return report
    // A check the server does not have will not appear by waiting.
    if (options.check && report.statusCode === 404) return report
    const left = deadline - now()
    if (left <= 0) return report
    await sleep(Math.min(options.intervalMs, left))
    if (now() >= deadline) return report
  }
}
