/**
 * The state of `client health watch`, without React: per probed endpoint the latest report and,
 * per check, its state, when it last changed and its recent results; plus what the user chose
 * (excludes per endpoint, the selected row, the endpoint shown). Every function here is pure:
 * it returns a new state and never changes the one it is given.
 */
import type { CheckState, HealthEndpoint, HealthReport, Verdict } from './report.js'

/** How many recent results a row keeps. */
export const HISTORY_LENGTH = 10

/** A change stays highlighted for this many poll intervals. */
const FRESH_INTERVALS = 2

/** One result in a row's history: the check's state, or `unknown` for a poll that listed no checks (unreachable). */
export type HistoryEntry = CheckState | 'unknown'

export interface CheckRow {
  name: string
  state: CheckState
  /** When the state last changed, or when the check was first seen (ms since the epoch). */
  since: number
  /** When the state last changed; undefined while the check has kept the state it was first seen with. */
  changedAt?: number
  /** The last results, oldest first, at most HISTORY_LENGTH. */
  history: readonly HistoryEntry[]
}

/** The last time the server answered an endpoint (any status). */
interface EndpointAnswer {
  verdict: Exclude<Verdict, 'unreachable'>
  statusCode: number
  at: number
}

export interface EndpointState {
  endpoint: HealthEndpoint
  /** The latest report, whatever it was; undefined before the first probe finished. */
  report?: HealthReport
  /** The latest answer of the server; kept while it is unreachable. */
  answer?: EndpointAnswer
  /** Undefined before the first probe finished. */
  reachable?: boolean
  /**
   * The latest report listed no checks (unreachable, or an answer that is not a verbose report,
   * e.g. 403): the rows are the last known ones.
   */
  stale: boolean
  /** In the server's order. */
  checks: readonly CheckRow[]
  /** Checks the user excluded (sent as `exclude`), in the order they were excluded. */
  excludes: readonly string[]
}

export interface WatchState {
  /** The endpoints polled, in display order. */
  endpoints: readonly HealthEndpoint[]
  byEndpoint: Readonly<Partial<Record<HealthEndpoint, EndpointState>>>
  /** The endpoint shown. */
  active: HealthEndpoint
  /** Index of the selected row among the checks of the active endpoint. */
  selected: number
  intervalMs: number
  /** A change is highlighted while `now - changedAt < freshMs`. */
  freshMs: number
  /** The time of the latest report (or of creation): the view's "now". */
  now: number
}

interface CreateWatchStateOptions {
  endpoints: readonly HealthEndpoint[]
  intervalMs: number
  /** Excludes to start with: one list for every endpoint, or per endpoint. */
  exclude?: readonly string[] | Readonly<Partial<Record<HealthEndpoint, readonly string[]>>>
  /** The endpoint shown first; defaults to readyz when polled (it lists every check), else the first endpoint. */
  active?: HealthEndpoint
  now?: number
  freshIntervals?: number
}

export function createWatchState(options: CreateWatchStateOptions): WatchState {
  if (options.endpoints.length === 0) throw new Error('health watch needs at least one endpoint')
  const byEndpoint: Partial<Record<HealthEndpoint, EndpointState>> = {}
  for (const endpoint of options.endpoints) {
    const exclude = options.exclude
    const excludes = exclude === undefined ? [] : isList(exclude) ? exclude : (exclude[endpoint] ?? [])
    byEndpoint[endpoint] = { ...emptyEndpoint(endpoint), excludes: unique(excludes) }
  }
  const active =
    options.active && options.endpoints.includes(options.active)
      ? options.active
      : options.endpoints.includes('readyz')
        ? 'readyz'
        : options.endpoints[0]
  return {
    endpoints: [...options.endpoints],
    byEndpoint,
    active,
    selected: 0,
    intervalMs: options.intervalMs,
    freshMs: (options.freshIntervals ?? FRESH_INTERVALS) * options.intervalMs,
    now: options.now ?? 0,
  }
}

/** The state of one endpoint (an empty one when it was never probed). */
export function endpointState(state: WatchState, endpoint: HealthEndpoint): EndpointState {
  return state.byEndpoint[endpoint] ?? emptyEndpoint(endpoint)
}

/** The rows of the endpoint shown. */
export function activeRows(state: WatchState): readonly CheckRow[] {
  return endpointState(state, state.active).checks
}

export function selectedRow(state: WatchState): CheckRow | undefined {
  return activeRows(state)[state.selected]
}

export function isFresh(row: CheckRow, state: Pick<WatchState, 'now' | 'freshMs'>): boolean {
  return row.changedAt !== undefined && state.now - row.changedAt < state.freshMs
}

/** Applies the result of one probe. */
export function applyReport(state: WatchState, report: HealthReport): WatchState {
  const endpoint = report.endpoint
  const prev = endpointState(state, endpoint)
  const at = report.at
  const reachable = report.verdict !== 'unreachable'
  const stale = !reachable || report.checks.length === 0
  let checks: readonly CheckRow[]
  if (stale) {
    checks = prev.checks.map((row) => ({ ...row, history: pushHistory(row.history, 'unknown') }))
  } else {
    const old = new Map(prev.checks.map((row) => [row.name, row]))
    checks = report.checks.map(({ name, state: now }): CheckRow => {
      const row = old.get(name)
      if (!row) return { name, state: now, since: at, history: [now] }
      const changed = row.state !== now
      return {
        name,
        state: now,
        since: changed ? at : row.since,
        changedAt: changed ? at : row.changedAt,
        history: pushHistory(row.history, now),
      }
    })
  }
  const answer: EndpointAnswer | undefined =
    reachable && report.statusCode !== undefined ? { verdict: report.verdict as EndpointAnswer['verdict'], statusCode: report.statusCode, at } : prev.answer
  const next: EndpointState = { ...prev, report, answer, reachable, stale, checks }
  let selected = state.selected
  if (endpoint === state.active) {
    const name = prev.checks[state.selected]?.name
    const index = name === undefined ? -1 : checks.findIndex((row) => row.name === name)
    selected = index >= 0 ? index : clamp(state.selected, checks.length)
  }
  return {
    ...state,
    endpoints: state.endpoints.includes(endpoint) ? state.endpoints : [...state.endpoints, endpoint],
    byEndpoint: { ...state.byEndpoint, [endpoint]: next },
    selected,
    now: Math.max(state.now, at),
  }
}

/** Excludes the selected check of the active endpoint, or includes it again. */
export function toggleExclude(state: WatchState): WatchState {
  const row = selectedRow(state)
  if (!row) return state
  const current = endpointState(state, state.active)
  const excludes = current.excludes.includes(row.name)
    ? current.excludes.filter((name) => name !== row.name)
    : [...current.excludes, row.name]
  return setExcludes(state, state.active, excludes)
}

export function setExcludes(state: WatchState, endpoint: HealthEndpoint, excludes: readonly string[]): WatchState {
  const current = endpointState(state, endpoint)
  return { ...state, byEndpoint: { ...state.byEndpoint, [endpoint]: { ...current, excludes: unique(excludes) } } }
}

/** Moves the selection by `delta` rows, stopping at the first and the last row. */
export function moveSelection(state: WatchState, delta: number): WatchState {
  const selected = clamp(state.selected + delta, activeRows(state).length)
  return selected === state.selected ? state : { ...state, selected }
}

/**
 * Shows the next endpoint (or `to`). The selection stays on the check of the same name
 * when the other endpoint has it (livez and readyz share most checks).
 */
export function switchEndpoint(state: WatchState, to?: HealthEndpoint): WatchState {
  const index = state.endpoints.indexOf(state.active)
  const active = to ?? state.endpoints[(index + 1) % state.endpoints.length]
  if (active === state.active || !state.endpoints.includes(active)) return state
  const name = selectedRow(state)?.name
  const rows = endpointState(state, active).checks
  const same = name === undefined ? -1 : rows.findIndex((row) => row.name === name)
  return { ...state, active, selected: same >= 0 ? same : clamp(state.selected, rows.length) }
}

export type WatchEvent =
  /** A check changed state; `from` undefined: first seen; `to` undefined: no longer listed. */
  | { kind: 'check'; endpoint: HealthEndpoint; at: number; name: string; from?: CheckState; to?: CheckState }
  /** The verdict of an answer changed; `from` undefined: the first answer. */
  | { kind: 'verdict'; endpoint: HealthEndpoint; at: number; from?: Verdict; to: Verdict; statusCode: number }
  | { kind: 'unreachable'; endpoint: HealthEndpoint; at: number; error: string }
  /** The server answers again after being unreachable. */
  | { kind: 'reachable'; endpoint: HealthEndpoint; at: number; statusCode: number }

/**
 * What changed from `before` to `after`, per endpoint in display order: reachability first,
 * then checks (in the server's order, then the ones no longer listed), then the verdict.
 * Only endpoints with a new report are compared. Checks are not compared while the latest
 * report lists none (their last known states are kept, so a recovery only reports real changes).
 * An unreachable server is reported once, not as a verdict change.
 */
export function changes(before: WatchState, after: WatchState): WatchEvent[] {
  const events: WatchEvent[] = []
  for (const endpoint of after.endpoints) {
    const a = endpointState(after, endpoint)
    const b = endpointState(before, endpoint)
    const report = a.report
    if (!report || report === b.report) continue
    const at = report.at
    if (!a.reachable) {
      if (b.reachable !== false) events.push({ kind: 'unreachable', endpoint, at, error: report.error ?? 'no answer' })
      continue
    }
    if (b.reachable === false) events.push({ kind: 'reachable', endpoint, at, statusCode: report.statusCode ?? 0 })
    if (!a.stale) {
      const old = new Map(b.checks.map((row) => [row.name, row.state]))
      for (const row of a.checks) {
        const from = old.get(row.name)
        if (from !== row.state) events.push({ kind: 'check', endpoint, at, name: row.name, from, to: row.state })
      }
      const listed = new Set(a.checks.map((row) => row.name))
      for (const row of b.checks) {
        if (!listed.has(row.name)) events.push({ kind: 'check', endpoint, at, name: row.name, from: row.state })
      }
    }
    if (a.answer && a.answer.verdict !== b.answer?.verdict) {
      events.push({ kind: 'verdict', endpoint, at, from: b.answer?.verdict, to: a.answer.verdict, statusCode: a.answer.statusCode })
    }
  }
  return events
}

function emptyEndpoint(endpoint: HealthEndpoint): EndpointState {
  return { endpoint, stale: false, checks: [], excludes: [] }
}

function pushHistory(history: readonly HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const next = [...history, entry]
  return next.length > HISTORY_LENGTH ? next.slice(next.length - HISTORY_LENGTH) : next
}

function clamp(index: number, length: number): number {
  if (length === 0) return 0
  return Math.min(Math.max(index, 0), length - 1)
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)]
}

function isList(value: unknown): value is readonly string[] {
  return Array.isArray(value)
}
