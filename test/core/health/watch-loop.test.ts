/** The polling loop of `client health watch`, on a fake clock. */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import type { HealthEndpoint, HealthReport } from '../../../src/core/health/report.js'
import { type WatchClock, createWatchStore, probeOnce, runWatch } from '../../../src/core/health/watch-loop.js'
import { type WatchState, createWatchState, endpointState, moveSelection, toggleExclude } from '../../../src/core/health/watch-model.js'
import { READYZ, T0, report } from '../views/watch-fixtures.js'

class FakeClock implements WatchClock {
  time = T0
  private timers: Array<{ at: number; callback: () => void; id: number }> = []
  private ids = 0
  now = () => this.time
  setTimeout = (callback: () => void, ms: number) => {
    const id = ++this.ids
    this.timers.push({ at: this.time + ms, callback, id })
    return id
  }
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== handle)
  }
  get pending() {
    return this.timers.length
  }
  /** Runs the timers due within `ms`, in order, letting promises settle after each. */
  async advance(ms: number) {
    const end = this.time + ms
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at)
      const next = this.timers[0]
      if (!next || next.at > end) break
      this.timers.shift()
      this.time = next.at
      next.callback()
      await settle()
    }
    this.time = end
    await settle()
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

interface Call {
  endpoint: HealthEndpoint
  exclude: string[]
  resolve: (report: HealthReport) => void
  reject: (err: Error) => void
}

/** A probe whose answers the test gives by hand. */
function manualProbe(clock: FakeClock) {
  const calls: Call[] = []
  const probe = (endpoint: HealthEndpoint, exclude: string[]) =>
    new Promise<HealthReport>((resolve, reject) => calls.push({ endpoint, exclude, resolve, reject }))
  const answer = (call: Call, options: Parameters<typeof report>[2] = {}) =>
    call.resolve(report(call.endpoint, READYZ, { at: clock.now(), exclude: call.exclude, ...options }))
  return { calls, probe, answer }
}

describe('health watch loop', () => {
  it('probes every endpoint at once and then every interval, in parallel', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    const states: WatchState[] = []
    runWatch({ probe, endpoints: ['livez', 'readyz'], intervalMs: 2000, clock, signal: ac.signal, onState: (s) => states.push(s) })
    assert.deepEqual(calls.map((c) => c.endpoint), ['livez', 'readyz'], 'both probes started without waiting')
    answer(calls[0])
    answer(calls[1])
    await settle()
    assert.equal(states.length, 2)
    assert.equal(endpointState(states[1], 'readyz').checks.length, READYZ.length)
    await clock.advance(1999)
    assert.equal(calls.length, 2)
    await clock.advance(1)
    assert.deepEqual(calls.map((c) => c.endpoint), ['livez', 'readyz', 'livez', 'readyz'])
    ac.abort()
  })

  it('does not stack probes: an endpoint whose probe is in flight skips ticks', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    runWatch({ probe, endpoints: ['livez', 'readyz'], intervalMs: 1000, clock, signal: ac.signal })
    answer(calls[0]) // livez answers; readyz hangs
    await settle()
    await clock.advance(3000)
    const count = (e: HealthEndpoint) => calls.filter((c) => c.endpoint === e).length
    assert.equal(count('readyz'), 1, 'no new readyz probe while one is in flight')
    assert.equal(count('livez'), 2, 'livez is probed at the tick after its answer; its second probe hangs')
    answer(calls[1]) // readyz answers at last
    await settle()
    await clock.advance(1000)
    assert.equal(count('readyz'), 2, 'probed again at the next tick')
    ac.abort()
  })

  it('applies the reports and passes the excludes; a changed exclude is probed at once', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    const handle = runWatch({ probe, endpoints: ['readyz'], intervalMs: 5000, clock, signal: ac.signal, exclude: ['etcd'] })
    assert.deepEqual(calls[0].exclude, ['etcd'])
    answer(calls[0])
    await settle()
    handle.update((s) => toggleExclude(moveSelection(s, 2)))
    assert.equal(calls.length, 2, 'probed at once')
    assert.deepEqual(calls[1].exclude, ['etcd', 'store'])
    answer(calls[1], { states: { store: 'excluded' } })
    await settle()
    assert.equal(endpointState(handle.getState(), 'readyz').checks[2].state, 'excluded')
    handle.update((s) => moveSelection(s, 1))
    assert.equal(calls.length, 2, 'selection does not probe')
    ac.abort()
  })

  it('re-probes after the one in flight when the excludes change meanwhile', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    const handle = runWatch({ probe, endpoints: ['readyz'], intervalMs: 5000, clock, signal: ac.signal })
    answer(calls[0])
    await settle()
    await clock.advance(5000)
    assert.equal(calls.length, 2)
    handle.update(toggleExclude)
    assert.equal(calls.length, 2, 'in flight: waits')
    answer(calls[1])
    await settle()
    assert.equal(calls.length, 3)
    assert.deepEqual(calls[2].exclude, ['ping'])
    ac.abort()
  })

  it('takes a rejected probe as unreachable', async () => {
    const clock = new FakeClock()
    const { calls, probe } = manualProbe(clock)
    const ac = new AbortController()
    const handle = runWatch({ probe, endpoints: ['livez'], intervalMs: 1000, clock, signal: ac.signal })
    calls[0].reject(new Error('socket hang up'))
    await settle()
    const e = endpointState(handle.getState(), 'livez')
    assert.equal(e.reachable, false)
    assert.equal(e.report?.error, 'socket hang up')
    assert.equal(e.report?.path, '/livez?verbose')
    ac.abort()
  })

  it('stops on abort: no timer left, no new probe, late answers ignored', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    const states: WatchState[] = []
    const handle = runWatch({ probe, endpoints: ['livez', 'readyz'], intervalMs: 1000, clock, signal: ac.signal, onState: (s) => states.push(s) })
    assert.equal(clock.pending, 1)
    ac.abort()
    await handle.done
    assert.equal(clock.pending, 0)
    answer(calls[0])
    await settle()
    assert.equal(states.length, 0, 'the late answer is not applied')
    await clock.advance(5000)
    assert.equal(calls.length, 2)
    handle.pollNow()
    assert.equal(calls.length, 2)
  })

  it('does nothing with a signal aborted before the start', async () => {
    const clock = new FakeClock()
    const { calls, probe } = manualProbe(clock)
    const handle = runWatch({ probe, endpoints: ['livez'], intervalMs: 1000, clock, signal: AbortSignal.abort() })
    await handle.done
    assert.equal(calls.length, 0)
    assert.equal(clock.pending, 0)
  })

  it('pollNow probes at once, except endpoints in flight', async () => {
    const clock = new FakeClock()
    const { calls, probe, answer } = manualProbe(clock)
    const ac = new AbortController()
    const handle = runWatch({ probe, endpoints: ['livez', 'readyz'], intervalMs: 10_000, clock, signal: ac.signal })
    answer(calls[0])
    await settle()
    handle.pollNow()
    assert.deepEqual(calls.map((c) => c.endpoint), ['livez', 'readyz', 'livez'])
    ac.abort()
  })

  it('starts from a given state', async () => {
    const clock = new FakeClock()
    const { calls, probe } = manualProbe(clock)
    const ac = new AbortController()
    const initialState = createWatchState({ endpoints: ['readyz'], intervalMs: 1000, exclude: { readyz: ['shutdown'] } })
    const handle = runWatch({ probe, endpoints: ['readyz'], intervalMs: 1000, clock, signal: ac.signal, initialState })
    assert.equal(handle.getState(), initialState)
    assert.deepEqual(calls[0].exclude, ['shutdown'])
    ac.abort()
  })

  it('the store tells its listeners of each new state until they unsubscribe', () => {
    const store = createWatchStore(createWatchState({ endpoints: ['readyz'], intervalMs: 1000 }))
    const seen: WatchState[] = []
    const off = store.subscribe((s) => seen.push(s))
    store.update((s) => ({ ...s, now: 1 }))
    store.update((s) => s)
    off()
    store.update((s) => ({ ...s, now: 2 }))
    assert.equal(seen.length, 1)
    assert.equal(store.getState().now, 2)
  })

  it('probeOnce probes every endpoint in parallel and keeps their order', async () => {
    const seen: Array<[HealthEndpoint, string[]]> = []
    const reports = await probeOnce(
      async (endpoint, exclude) => {
        seen.push([endpoint, exclude])
        if (endpoint === 'livez') throw new Error('ECONNRESET')
        return report(endpoint, READYZ)
      },
      ['livez', 'readyz'],
      ['etcd'],
    )
    assert.deepEqual(seen, [['livez', ['etcd']], ['readyz', ['etcd']]])
    assert.deepEqual(reports.map((r) => [r.endpoint, r.verdict]), [['livez', 'unreachable'], ['readyz', 'healthy']])
    assert.equal(reports[0].error, 'ECONNRESET')
  })
})
