/**
 * The polling loop of `client health watch`: probes every endpoint each interval (in parallel;
 * an endpoint whose probe is still in flight skips the tick), applies the reports to the
 * watch state and tells its listeners. The state lives in a small store that the view reads
 * and updates (selection, endpoint shown, excludes); changed excludes are probed at once.
 */
import { type HealthEndpoint, type HealthReport, probePath } from './report.js'
import { type WatchState, applyReport, createWatchState, endpointState } from './watch-model.js'

/** Probes one endpoint with the user's excludes. Should resolve (unreachable is a report); a rejection is taken as unreachable. */
type WatchProbe = (endpoint: HealthEndpoint, exclude: string[], signal: AbortSignal) => Promise<HealthReport>

/** Time and timers, injectable for tests. */
export interface WatchClock {
  now(): number
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

const systemClock: WatchClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** Holds the watch state; what the view needs. */
export interface WatchStore {
  getState(): WatchState
  /** Calls `listener` with every new state; returns the unsubscribe function. */
  subscribe(listener: (state: WatchState) => void): () => void
  update(change: (state: WatchState) => WatchState): void
}

export function createWatchStore(initial: WatchState): WatchStore {
  let state = initial
  const listeners = new Set<(state: WatchState) => void>()
  return {
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    update(change) {
      const next = change(state)
      if (next === state) return
      state = next
      for (const listener of [...listeners]) listener(state)
    },
  }
}

interface RunWatchOptions {
  probe: WatchProbe
  endpoints: readonly HealthEndpoint[]
  intervalMs: number
  /** Called with every new state (after each report, and after each `update`). */
  onState?: (state: WatchState) => void
  /** Stops the loop: no probe is started and no report applied after it fires. */
  signal: AbortSignal
  clock?: WatchClock
  /** Excludes to start with (the `--exclude` flag). Ignored with `initialState`. */
  exclude?: readonly string[]
  /** The endpoint shown first (default: readyz when polled). Ignored with `initialState`. */
  active?: HealthEndpoint
  initialState?: WatchState
}

interface WatchHandle extends WatchStore {
  /** Resolves when the signal fires. */
  done: Promise<void>
  /** Probes an endpoint now (all when omitted), unless its probe is in flight. */
  pollNow(endpoint?: HealthEndpoint): void
}

/**
 * Starts polling at once and then every `intervalMs`. `update` on the returned handle changes
 * the state (the view's keys); when it changes an endpoint's excludes, that endpoint is probed
 * again at once (or as soon as its probe in flight finishes).
 */
export function runWatch(options: RunWatchOptions): WatchHandle {
  const { probe, endpoints, intervalMs, signal } = options
  const clock = options.clock ?? systemClock
  const store = createWatchStore(
    options.initialState ?? createWatchState({ endpoints, intervalMs, exclude: options.exclude, active: options.active, now: clock.now() }),
  )
  if (options.onState) store.subscribe(options.onState)
  const inFlight = new Set<HealthEndpoint>()
  const again = new Set<HealthEndpoint>()
  let timer: unknown
  let resolveDone!: () => void
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })

  const start = (endpoint: HealthEndpoint): void => {
    if (signal.aborted) return
    if (inFlight.has(endpoint)) return
    inFlight.add(endpoint)
    const exclude = [...endpointState(store.getState(), endpoint).excludes]
    let pending: Promise<HealthReport>
    try {
      pending = Promise.resolve(probe(endpoint, exclude, signal))
    } catch (err) {
      pending = Promise.reject(err)
    }
    void pending
      .catch((err: unknown) => unreachableReport(endpoint, exclude, err, clock.now()))
      .then((report) => {
        inFlight.delete(endpoint)
        if (signal.aborted) return
        store.update((state) => applyReport(state, report))
        if (again.delete(endpoint)) start(endpoint)
      })
  }

  const tick = (): void => {
    if (signal.aborted) return
    for (const endpoint of endpoints) start(endpoint)
    timer = clock.setTimeout(tick, intervalMs)
  }

  const stop = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer)
    timer = undefined
    resolveDone()
  }
  if (signal.aborted) stop()
  else {
    signal.addEventListener('abort', stop, { once: true })
    tick()
  }

  return {
    getState: store.getState,
    subscribe: store.subscribe,
    update(change) {
      const before = store.getState()
      store.update(change)
      const after = store.getState()
      for (const endpoint of endpoints) {
        const was = endpointState(before, endpoint).excludes
        const is = endpointState(after, endpoint).excludes
        if (was.length === is.length && was.every((name, i) => name === is[i])) continue
        if (inFlight.has(endpoint)) again.add(endpoint)
        else start(endpoint)
      }
    },
    done,
    pollNow(endpoint) {
      for (const e of endpoint ? [endpoint] : endpoints) start(e)
    },
  }
}

/** Probes every endpoint once, in parallel (for `--once`); reports in the order of `endpoints`. */
export async function probeOnce(
  probe: WatchProbe,
  endpoints: readonly HealthEndpoint[],
  exclude: readonly string[] = [],
  signal: AbortSignal = new AbortController().signal,
  clock: Pick<WatchClock, 'now'> = systemClock,
): Promise<HealthReport[]> {
  return Promise.all(
    endpoints.map((endpoint) =>
      Promise.resolve()
        .then(() => probe(endpoint, [...exclude], signal))
        .catch((err: unknown) => unreachableReport(endpoint, [...exclude], err, clock.now())),
    ),
  )
}

function unreachableReport(endpoint: HealthEndpoint, exclude: string[], err: unknown, at: number): HealthReport {
  return {
    endpoint,
    path: probePath(endpoint, { exclude }),
    verdict: 'unreachable',
    checks: [],
    warnings: [],
    body: '',
    error: err instanceof Error ? err.message : String(err),
    latencyMs: 0,
    at,
  }
}
