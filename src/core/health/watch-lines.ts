/**
 * Output of `client health watch` when stdout is not a terminal: one plain line per change,
 * for logs, and the snapshot printed by `--once`.
 *
 *   2026-11-22T00:14:03Z readyz store ok                      (first poll: every check once)
 *   2026-11-22T00:14:03Z readyz verdict healthy (200)
 *   2026-11-22T00:14:09Z readyz store ok -> failed
 *   2026-11-22T00:14:09Z readyz verdict healthy -> unhealthy (500)
 *   2026-11-22T00:14:11Z readyz server unreachable: connect ECONNREFUSED 127.0.0.1:6443
 *   2026-11-22T00:14:13Z readyz server reachable again (200)
 */
import { type HealthReport, exitCodeOf } from './report.js'
import { type WatchEvent, type WatchState, changes } from './watch-model.js'

/** `2026-11-22T00:14:03Z`: UTC, whole seconds. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

function formatEvent(event: WatchEvent): string {
  const head = `${formatTimestamp(event.at)} ${event.endpoint}`
  switch (event.kind) {
    case 'check':
      if (event.from === undefined) return `${head} ${event.name} ${event.to}`
      if (event.to === undefined) return `${head} ${event.name} ${event.from} -> removed`
      return `${head} ${event.name} ${event.from} -> ${event.to}`
    case 'verdict':
      return event.from === undefined
        ? `${head} verdict ${event.to} (${event.statusCode})`
        : `${head} verdict ${event.from} -> ${event.to} (${event.statusCode})`
    case 'unreachable':
      return `${head} server unreachable: ${oneLine(event.error)}`
    case 'reachable':
      return `${head} server reachable again (${event.statusCode})`
  }
}

/** The lines for what changed from `before` to `after`. */
export function changeLines(before: WatchState, after: WatchState): string[] {
  return changes(before, after).map(formatEvent)
}

/**
 * A listener for `runWatch`'s `onState` that writes the lines of each change. The first state
 * it is given is compared with an empty one, so the first poll prints every check once.
 */
export function createLineWriter(write: (line: string) => void): (state: WatchState) => void {
  let previous: WatchState | undefined
  return (state) => {
    const before = previous ?? { ...state, byEndpoint: {} }
    for (const line of changeLines(before, state)) write(line)
    previous = state
  }
}

/**
 * The `--once` snapshot: a table of every check of each report, then one verdict line per
 * report (`readyz: unhealthy (500, 12ms): store failed`, `livez: unreachable: <error>`) and
 * its warnings. Ends with a newline.
 */
export function formatSnapshot(reports: readonly HealthReport[]): string {
  const out: string[] = []
  const rows = reports.flatMap((report) => report.checks.map((check) => [report.endpoint, check.state, check.name]))
  if (rows.length > 0) {
    const width = [Math.max(8, ...rows.map((r) => r[0].length)), Math.max(5, ...rows.map((r) => r[1].length))]
    const row = (cells: string[]) => `${cells[0].padEnd(width[0])}  ${cells[1].padEnd(width[1])}  ${cells[2]}`
    out.push(row(['ENDPOINT', 'STATE', 'CHECK']))
    for (const cells of rows) out.push(row(cells))
  }
  for (const report of reports) {
    out.push(verdictLine(report))
    for (const warning of report.warnings) out.push(`${report.endpoint}: warn: ${warning}`)
  }
  return out.map((line) => `${line}\n`).join('')
}

/** `readyz: healthy (200, 4ms)`, `readyz: unhealthy (500, 3ms): store failed`, `readyz: unreachable: <error>`. */
export function verdictLine(report: HealthReport): string {
  if (report.verdict === 'unreachable') return `${report.endpoint}: unreachable: ${oneLine(report.error ?? 'no answer')}`
  const failed = report.checks.filter((c) => c.state === 'failed').map((c) => c.name)
  const reason = failed.length > 0 ? `: ${failed.join(', ')} failed` : ''
  return `${report.endpoint}: ${report.verdict} (${report.statusCode}, ${Math.round(report.latencyMs)}ms)${reason}`
}

/** The exit code of `--once`, as `client health check`'s: the worst of the reports (3 unreachable, 1 unhealthy, 0 healthy). */
export function snapshotExitCode(reports: readonly HealthReport[]): number {
  return Math.max(0, ...reports.map((report) => exitCodeOf(report.verdict)))
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}
