/**
 * The health report model shared by `client health check` and `client health watch`: what
 * one probe of a status endpoint found, parsed from the server's verbose report.
 */
export type HealthEndpoint = 'livez' | 'readyz' | 'healthz'

export type CheckState = 'ok' | 'failed' | 'excluded'

interface CheckStatus {
  name: string
  state: CheckState
}

/** healthy: 2xx; unhealthy: the server answered with another status; unreachable: no answer (network or TLS). */
export type Verdict = 'healthy' | 'unhealthy' | 'unreachable'

export interface HealthReport {
  endpoint: HealthEndpoint
  /** The path probed, e.g. `/readyz?verbose&exclude=store` or `/readyz/store`. */
  path: string
  /** Undefined when the server could not be reached. */
  statusCode?: number
  verdict: Verdict
  /** From the verbose report (empty for an individual check or an unreachable server). */
  checks: CheckStatus[]
  /** `warn: ...` lines of the report (unknown excludes). */
  warnings: string[]
  /** The response body as received (or the connection error). */
  body: string
  /** Why the server was unreachable, when it was. */
  error?: string
  latencyMs: number
  /** When the probe finished (ms since the epoch). */
  at: number
}

const LINE = /^\[([+-])\](.+?) (ok|excluded: ok|excluded with .+: ok|failed: .*)$/

/** Parses the lines of a verbose report into check states, in the server's order. */
export function parseVerboseReport(body: string): { checks: CheckStatus[]; warnings: string[] } {
  const checks: CheckStatus[] = []
  const warnings: string[] = []
  for (const line of body.split('\n')) {
    if (line.startsWith('warn: ')) {
      warnings.push(line.slice(6))
      continue
    }
    const m = LINE.exec(line)
    if (!m) continue
    const state: CheckState = m[1] === '-' ? 'failed' : m[3].startsWith('excluded') ? 'excluded' : 'ok'
    checks.push({ name: m[2], state })
  }
  return { checks, warnings }
}

export function verdictOf(statusCode: number | undefined): Verdict {
  if (statusCode === undefined) return 'unreachable'
  return statusCode >= 200 && statusCode < 300 ? 'healthy' : 'unhealthy'
}

/** The path of a probe: the aggregate endpoint (always verbose, so checks can be listed) or one check. */
export function probePath(endpoint: HealthEndpoint, options: { check?: string; exclude?: readonly string[] } = {}): string {
  if (options.check) return `/${endpoint}/${options.check.split('/').map(encodeURIComponent).join('/')}`
  const query = ['verbose', ...(options.exclude ?? []).map((name) => `exclude=${encodeURIComponent(name)}`)]
  return `/${endpoint}?${query.join('&')}`
}

/**
 * Exit codes of `client health check` (and `health watch --once`), stable for scripts:
 * 0 healthy, 1 unhealthy (the server answered with a failure status), 2 usage error,
 * 3 unreachable (connection refused, DNS, TLS verification, timeout).
 */
export const EXIT_CODES = { healthy: 0, unhealthy: 1, usage: 2, unreachable: 3 } as const

export function exitCodeOf(verdict: Verdict): number {
  return EXIT_CODES[verdict]
}
