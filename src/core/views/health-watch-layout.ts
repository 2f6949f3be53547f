/**
 * The layout of the `client health watch` screen as lines of styled segments, without React:
 * which columns fit the width, how long names are cut, which rows are visible. Every line
 * it returns is at most `columns` characters wide.
 *
 *   https://127.0.0.1:6443  v1.31.2  every 2s
 *   livez: ok 3ms  readyz: FAILED (500) 12ms
 *   readyz  q quit  v switch  e exclude  ↑↓ select · 19 checks, 1 failed, 1 excluded
 *   › ✓ ok       ping                                                 12s ··········
 *    *✗ FAILED   store                                                 2s ········xx
 *     ○ excluded shutdown                                              1m       ----
 *
 * (`›` the selected row, `*` a change within the freshness window; a fourth, red header line
 * tells why the rows are stale when the endpoint is unreachable.)
 */
import {
  type CheckRow,
  type EndpointState,
  type HistoryEntry,
  type WatchState,
  HISTORY_LENGTH,
  endpointState,
  isFresh,
} from '../health/watch-model.js'

type Color = 'green' | 'red' | 'yellow' | 'gray' | 'cyan'

export interface Segment {
  text: string
  color?: Color
  bold?: boolean
  dim?: boolean
  inverse?: boolean
  underline?: boolean
}

export type Line = Segment[]

export interface LayoutOptions {
  server: string
  version?: string
  columns: number
  /** The terminal's height; undefined: no limit (every row shown). */
  rows?: number
  /** The first visible row of the previous frame (kept while the selection stays visible). */
  offset?: number
}

export interface WatchLayout {
  header: Line[]
  body: Line[]
  /** Index of the first row shown. */
  offset: number
  /** How many check rows fit. */
  visibleRows: number
}

/** Which row columns are shown at a width. */
interface Columns {
  /** The state word after the symbol (`✓ ok`); without it only the symbol. */
  word: boolean
  since: boolean
  history: boolean
}

/** Below this width the history is dropped. */
export const HISTORY_MIN_COLUMNS = 60
/** Below this width the time since the last change is dropped too. */
export const SINCE_MIN_COLUMNS = 50
/** Below this width only the state symbol and the name are shown. */
export const WORD_MIN_COLUMNS = 40

const PREFIX_WIDTH = 2 // selection marker, fresh-change marker
const STATE_WIDTH = 10 // `○ excluded`
const SINCE_WIDTH = 3 // `59s`, `12m`, `23h`, `6d`, `52w`, `2y`

export function columnsFor(width: number): Columns {
  return { word: width >= WORD_MIN_COLUMNS, since: width >= SINCE_MIN_COLUMNS, history: width >= HISTORY_MIN_COLUMNS }
}

/** `12s`, `3m`, `1h`, `2d`, `5w`, `1y`: the largest whole unit, at most 3 characters. */
export function formatSince(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return `${h}h`
  const d = Math.floor(h / 24)
  if (d < 7) return `${d}d`
  const w = Math.floor(d / 7)
  if (w < 53) return `${w}w`
  return `${Math.min(99, Math.floor(d / 365))}y`
}

/** Cuts `text` to `width` characters, ending with `…` when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text]
  if (chars.length <= width) return text
  if (width <= 0) return ''
  return chars.slice(0, width - 1).join('') + '…'
}

export function textOf(line: Line): string {
  return line.map((segment) => segment.text).join('')
}

/** Cuts a line of segments to `width` characters (the last kept character becomes `…`). */
export function clipLine(line: Line, width: number): Line {
  const total = [...textOf(line)].length
  if (total <= width) return line
  const out: Line = []
  let left = width
  for (const segment of line) {
    if (left <= 0) break
    const chars = [...segment.text]
    if (chars.length < left) {
      out.push(segment)
      left -= chars.length
    } else {
      out.push({ ...segment, text: truncate(segment.text + '…', left) })
      left = 0
    }
  }
  return out
}

/**
 * The first visible row: unchanged while the selection stays inside the window, else moved
 * just enough to show it; never past the end.
 */
export function scrollOffset(previous: number, selected: number, visible: number, total: number): number {
  if (visible <= 0 || total <= visible) return 0
  let offset = Math.min(Math.max(previous, 0), total - visible)
  if (selected < offset) offset = selected
  else if (selected >= offset + visible) offset = selected - visible + 1
  return Math.min(Math.max(offset, 0), total - visible)
}

const STATE_LOOK: Record<CheckRow['state'], { symbol: string; word: string; color: Color; bold?: boolean }> = {
  ok: { symbol: '✓', word: 'ok', color: 'green' },
  failed: { symbol: '✗', word: 'FAILED', color: 'red', bold: true },
  excluded: { symbol: '○', word: 'excluded', color: 'gray' },
}

const HISTORY_LOOK: Record<HistoryEntry, { char: string; color: Color }> = {
  ok: { char: '·', color: 'green' },
  failed: { char: 'x', color: 'red' },
  excluded: { char: '-', color: 'gray' },
  unknown: { char: '?', color: 'gray' },
}

export function layoutWatch(state: WatchState, options: LayoutOptions): WatchLayout {
  const width = Math.max(1, Math.floor(options.columns))
  const active = endpointState(state, state.active)
  const rows = active.checks
  const problem = problemOf(active)
  const headerLines = 3 + (problem ? 1 : 0)
  // Leave the last line of the terminal free: Ink redraws a frame as tall as the terminal by clearing it.
  const visibleRows =
    options.rows === undefined ? Math.max(rows.length, 1) : Math.max(1, Math.floor(options.rows) - 1 - headerLines)
  const offset = scrollOffset(options.offset ?? 0, state.selected, visibleRows, rows.length)

  const header: Line[] = [serverLine(state, options), verdictLine(state), helpLine(state, active, offset, visibleRows, width)]
  if (problem) header.push([{ text: problem, color: 'red' }])

  const body: Line[] = []
  if (rows.length === 0) {
    body.push([{ text: active.report ? `no checks listed by /${state.active}` : `waiting for /${state.active}…`, dim: true }])
  } else {
    const cols = columnsFor(width)
    for (let i = offset; i < Math.min(rows.length, offset + visibleRows); i++) {
      body.push(rowLine(rows[i], i === state.selected, isFresh(rows[i], state), active.stale, cols, width, state.now))
    }
  }
  return { header: header.map((line) => clipLine(line, width)), body: body.map((line) => clipLine(line, width)), offset, visibleRows }
}

function rowLine(row: CheckRow, selected: boolean, fresh: boolean, stale: boolean, cols: Columns, width: number, now: number): Line {
  const look = STATE_LOOK[row.state]
  const paint = (segment: Segment): Segment => (stale ? { text: segment.text, color: 'gray', dim: true } : segment)
  const line: Line = []
  line.push(selected ? { text: '›', color: 'cyan', bold: true } : { text: ' ' })
  line.push(fresh ? paint({ text: '*', color: 'yellow', bold: true }) : { text: ' ' })
  const stateText = cols.word ? `${look.symbol} ${look.word}` : look.symbol
  line.push(paint({ text: stateText, color: look.color, bold: look.bold, inverse: fresh }))
  const stateWidth = cols.word ? STATE_WIDTH : 1
  line.push({ text: ' '.repeat(stateWidth - [...stateText].length + 1) })
  const right = (cols.since ? 1 + SINCE_WIDTH : 0) + (cols.history ? 1 + HISTORY_LENGTH : 0)
  const nameWidth = Math.max(1, width - PREFIX_WIDTH - stateWidth - 1 - right)
  const name = truncate(row.name, nameWidth)
  line.push(paint({ text: name, color: fresh ? 'yellow' : undefined, bold: selected }))
  if (cols.since || cols.history) line.push({ text: ' '.repeat(nameWidth - [...name].length) })
  if (cols.since) line.push(paint({ text: ' ' + formatSince(now - row.since).padStart(SINCE_WIDTH), dim: true }))
  if (cols.history) {
    line.push({ text: ' ' + ' '.repeat(HISTORY_LENGTH - row.history.length) })
    for (const entry of row.history) {
      const h = HISTORY_LOOK[entry]
      line.push(paint({ text: h.char, color: h.color }))
    }
  }
  return mergePlain(line)
}

function serverLine(state: WatchState, options: LayoutOptions): Line {
  const line: Line = [{ text: options.server, bold: true }]
  if (options.version) line.push({ text: `  ${options.version}` })
  line.push({ text: `  every ${formatInterval(state.intervalMs)}`, dim: true })
  return line
}

function verdictLine(state: WatchState): Line {
  const line: Line = []
  state.endpoints.forEach((endpoint, i) => {
    const e = endpointState(state, endpoint)
    if (i > 0) line.push({ text: '  ' })
    line.push({ text: `${endpoint}:`, bold: endpoint === state.active, underline: endpoint === state.active })
    const report = e.report
    if (!report) line.push({ text: ' …', dim: true })
    else if (report.verdict === 'unreachable') line.push({ text: ' unreachable', color: 'red', bold: true })
    else if (report.verdict === 'healthy') line.push({ text: ' ok', color: 'green' })
    else line.push({ text: ` FAILED (${report.statusCode})`, color: 'red', bold: true })
    if (report && report.verdict !== 'unreachable') line.push({ text: ` ${Math.round(report.latencyMs)}ms`, dim: true })
  })
  return line
}

function helpLine(state: WatchState, active: EndpointState, offset: number, visible: number, width: number): Line {
  const rows = active.checks
  const line: Line = [{ text: state.active, bold: true, inverse: true }]
  if (rows.length > visible) line.push({ text: ` ${offset + 1}-${Math.min(rows.length, offset + visible)}/${rows.length}` })
  const full = '  q quit  v switch  e exclude  ↑↓ select'
  const used = [...textOf(line)].length
  line.push({ text: used + full.length <= width ? full : '  q v e ↑↓', dim: true })
  if (rows.length > 0) {
    const failed = rows.filter((row) => row.state === 'failed').length
    const excluded = rows.filter((row) => row.state === 'excluded').length
    let counts = ` · ${rows.length} checks`
    if (failed > 0) counts += `, ${failed} failed`
    if (excluded > 0) counts += `, ${excluded} excluded`
    line.push({ text: counts, dim: true })
  }
  return line
}

/** Why the rows are stale, when they are: the active endpoint is unreachable or did not list its checks. */
function problemOf(active: EndpointState): string | undefined {
  const report = active.report
  if (!report || !active.stale) return undefined
  const kept = active.checks.length > 0 ? ' (last known states)' : ''
  if (report.verdict === 'unreachable') return `unreachable: ${oneLine(report.error ?? 'no answer')}${kept}`
  const body = oneLine(report.body.split('\n').find((l) => l.trim() !== '') ?? '')
  return `${report.statusCode}${body ? `: ${body}` : ''}${kept}`
}

function formatInterval(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000}s`
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** Joins neighbouring unstyled segments (fewer Text nodes). */
function mergePlain(line: Line): Line {
  const out: Line = []
  for (const segment of line) {
    const last = out[out.length - 1]
    if (last && isPlain(last) && isPlain(segment)) last.text += segment.text
    else out.push({ ...segment })
  }
  return out
}

function isPlain(segment: Segment): boolean {
  return !segment.color && !segment.bold && !segment.dim && !segment.inverse && !segment.underline
}
