// The rows of the one table `npm run bench` prints at the end (bench/run.js). Each bench calls
// `report` with its headline figures; under bench/run.js the rows go to the file named by
// BENCH_REPORT (one JSON object per line), run alone the bench prints them itself.
//
// A row: { subject, figure, unit, baseline, baselineFigure, ratio, goal, met, readme }
//   subject         what was measured ("`client patch --local`, small Deployment")
//   figure, unit    its figure (a number) and unit ("ms", "requests/s")
//   baseline        what it is compared with, measured in the same run ("`node -e ''`")
//   baselineFigure  the baseline's figure, in the same unit
//   ratio           figure / baselineFigure (computed when both are given)
//   goal            the goal as text ("≤ 1.3x"), or undefined when there is none
//   met             true / false against the goal, undefined without one
//   readme          optional: a short label; the README's summary names the row's figure with it
import { appendFileSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Adds rows to the report; `bench` is the bench file's import.meta.url. */
export function report(benchUrl, rows) {
  const bench = basename(fileURLToPath(benchUrl)).replace(/\.bench\.js$/, '')
  const full = rows.map((row) => {
    const ratio = row.ratio ?? (Number.isFinite(row.figure) && Number.isFinite(row.baselineFigure) && row.baselineFigure !== 0 ? row.figure / row.baselineFigure : undefined)
    return { bench, ...row, ratio }
  })
  if (process.env.BENCH_REPORT) {
    appendFileSync(process.env.BENCH_REPORT, full.map((row) => `${JSON.stringify(row)}\n`).join(''))
    return
  }
  console.log(`\n${formatTable(full)}`)
}

/** Whether a ratio meets a goal written as `≤ 1.3x`, `≥ 0.7x` (or `<=`, `>=`). */
export function meets(ratio, goal) {
  const m = /^(≤|<=|≥|>=)\s*([\d.]+)x?$/.exec(goal.trim())
  if (!m) throw new Error(`a goal must read "≤ N" or "≥ N": ${goal}`)
  return m[1] === '≤' || m[1] === '<=' ? ratio <= Number(m[2]) : ratio >= Number(m[2])
}

const number = (x) => (x === undefined || !Number.isFinite(x) ? '' : x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2))

/** The Markdown table of rows: bench, subject, figure, baseline, ratio, goal, met. */
export function formatTable(rows) {
  const lines = ['| bench | subject | figure | baseline | ratio | goal | met |', '|---|---|---:|---|---:|---|---|']
  for (const r of rows) {
    const figure = r.figure === undefined ? '' : `${number(r.figure)} ${r.unit ?? ''}`.trim()
    const baseline = r.baseline === undefined ? '' : r.baselineFigure === undefined ? r.baseline : `${r.baseline}: ${number(r.baselineFigure)} ${r.unit ?? ''}`.trim()
    const ratio = r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`
    const met = r.met === undefined ? '' : r.met ? 'yes' : '**no**'
    lines.push(`| ${r.bench} | ${r.subject} | ${figure} | ${baseline} | ${ratio} | ${r.goal ?? ''} | ${met} |`)
  }
  return lines.join('\n')
}

/**
 * The README's three lines: when and where the latest run was, how many goals it met, the
 * goals it missed (bench, subject, ratio and goal), and where every row is.
 */
export function formatSummary(rows, { ran, when, cores, load }) {
  const met = rows.filter((r) => r.met === true).length
  const missed = rows.filter((r) => r.met === false || /failed/.test(r.subject ?? ''))
  // A goal in a ratio is shown with the ratio, one in a unit (`≤ 500 ms`) with the figure.
  const value = (r) => (/x$/.test(r.goal ?? '') || r.figure === undefined ? `${r.ratio.toFixed(2)}x` : `${number(r.figure)} ${r.unit ?? ''}`.trim())
  const missedText = missed.map((r) => (r.ratio === undefined ? `${r.bench}: ${r.subject.replace(/\*\*/g, '')}` : `${r.bench} ${r.subject} ${value(r)} (goal ${r.goal})`)).join('; ')
  // Rows a bench marks `readme: '<short label>'` are named with their figure whether met or not
  // (issue 33 asks for audit's figure in the README).
  const featured = rows.filter((r) => typeof r.readme === 'string' && r.ratio !== undefined).map((r) => `${r.readme} ${value(r)}${r.goal ? ` (goal ${r.goal})` : ''}`)
  return [
    `The latest bench run (${ran}; ${when} UTC, ${cores} cores, load ${load}): ${met} goals met, ${missed.length} not met${featured.length > 0 ? `; ${featured.join('; ')}` : ''}.`,
    missed.length === 0 ? 'Every goal was met.' : `Not met: ${missedText}.`,
    'Every row, the machine and the notes: [performance](docs/performance.md#the-latest-summary).',
  ].join('\n')
}
