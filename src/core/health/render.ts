/** Output of `client health check`: text for people and scripts' logs, JSON for machines. */
import { type HealthReport, exitCodeOf } from './report.js'

const HEALTH_REPORT_SCHEMA = 'client.health.check/v1'

interface HealthCheckJson {
  schema: typeof HEALTH_REPORT_SCHEMA
  server: string
  endpoint: string
  path: string
  statusCode: number | null
  verdict: string
  exitCode: number
  latencyMs: number
  checks: Array<{ name: string; state: string }>
  warnings: string[]
  error: string | null
}

export function toJson(server: string, report: HealthReport): HealthCheckJson {
  return {
    schema: HEALTH_REPORT_SCHEMA,
    server,
    endpoint: report.endpoint,
    path: report.path,
    statusCode: report.statusCode ?? null,
    verdict: report.verdict,
    exitCode: exitCodeOf(report.verdict),
    latencyMs: Math.round(report.latencyMs * 10) / 10,
    checks: report.checks.map(({ name, state }) => ({ name, state })),
    warnings: report.warnings,
    error: report.error ?? null,
  }
}

/**
 * Text: the server's own report when verbose (or failing), then one summary line:
 * `readyz: healthy (200, 4.2ms)`, `readyz: unhealthy (500, 3.1ms): store failed`,
 * `readyz: unreachable: Unable to connect to the server: ...`.
 */
export function toText(report: HealthReport, verbose: boolean): string {
  const what = report.path.startsWith(`/${report.endpoint}/`) ? report.path.slice(1) : report.endpoint
  if (report.verdict === 'unreachable') return `${what}: unreachable: ${report.error}\n`
  const latency = `${report.latencyMs.toFixed(1)}ms`
  const failed = report.checks.filter((c) => c.state === 'failed').map((c) => c.name)
  const body = verbose || report.verdict === 'unhealthy' ? report.body.replace(/\n?$/, '\n') : ''
  const reason = failed.length > 0 ? `: ${failed.join(', ')} failed` : ''
  return `${body}${what}: ${report.verdict} (${report.statusCode}, ${latency})${reason}\n`
}
