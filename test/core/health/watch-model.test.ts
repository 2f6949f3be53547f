/** The state model of `client health watch`: transitions, history, since, freshness, user actions, change events. */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import {
  HISTORY_LENGTH,
  activeRows,
  applyReport,
  changes,
  createWatchState,
  endpointState,
  isFresh,
  moveSelection,
  selectedRow,
  switchEndpoint,
  toggleExclude,
} from '../../../src/core/health/watch-model.js'
import { LIVEZ, READYZ, T0, report, stateWith, unreachable } from '../views/watch-fixtures.js'

const rowOf = (state: ReturnType<typeof stateWith>, name: string, endpoint: 'livez' | 'readyz' = 'readyz') =>
  endpointState(state, endpoint).checks.find((row) => row.name === name)

describe('health watch model', () => {
  describe('createWatchState', () => {
    it('starts with no reports, readyz (else the first endpoint) shown, the given excludes', () => {
      const state = createWatchState({ endpoints: ['livez', 'readyz'], intervalMs: 2000, exclude: ['etcd'], now: T0 })
      assert.equal(state.active, 'readyz')
      assert.equal(createWatchState({ endpoints: ['healthz', 'livez'], intervalMs: 1 }).active, 'healthz')
      assert.equal(createWatchState({ endpoints: ['livez', 'readyz'], intervalMs: 1, active: 'livez' }).active, 'livez')
      assert.equal(state.selected, 0)
      assert.equal(state.freshMs, 4000)
      assert.deepEqual(endpointState(state, 'livez').excludes, ['etcd'])
      assert.deepEqual(endpointState(state, 'readyz').excludes, ['etcd'])
      assert.equal(endpointState(state, 'readyz').report, undefined)
      const per = createWatchState({ endpoints: ['livez', 'readyz'], intervalMs: 1000, exclude: { readyz: ['shutdown'] } })
      assert.deepEqual(endpointState(per, 'livez').excludes, [])
      assert.deepEqual(endpointState(per, 'readyz').excludes, ['shutdown'])
    })

    it('needs an endpoint', () => {
      assert.throws(() => createWatchState({ endpoints: [], intervalMs: 1000 }), /at least one endpoint/)
    })
  })

  describe('applyReport', () => {
    it('lists every check in the server order with its state, since and a one-entry history', () => {
      const state = stateWith([report('readyz', READYZ, { states: { shutdown: 'excluded' } })])
      const rows = endpointState(state, 'readyz').checks
      assert.deepEqual(rows.map((r) => r.name), [...READYZ])
      assert.equal(rowOf(state, 'ping')?.state, 'ok')
      assert.equal(rowOf(state, 'shutdown')?.state, 'excluded')
      for (const row of rows) {
        assert.equal(row.since, T0)
        assert.equal(row.changedAt, undefined)
        assert.deepEqual(row.history, [row.state])
      }
      assert.equal(state.now, T0)
      assert.equal(endpointState(state, 'readyz').reachable, true)
      assert.deepEqual(endpointState(state, 'readyz').answer, { verdict: 'healthy', statusCode: 200, at: T0 })
    })

    it('records a transition: new state, since and changedAt at the report time; unchanged rows keep theirs', () => {
      const state = stateWith([
        report('readyz', READYZ, { at: T0 }),
        report('readyz', READYZ, { at: T0 + 2000 }),
        report('readyz', READYZ, { at: T0 + 4000, states: { store: 'failed' } }),
      ])
      const store = rowOf(state, 'store')!
      assert.equal(store.state, 'failed')
      assert.equal(store.since, T0 + 4000)
      assert.equal(store.changedAt, T0 + 4000)
      assert.deepEqual(store.history, ['ok', 'ok', 'failed'])
      const ping = rowOf(state, 'ping')!
      assert.equal(ping.since, T0)
      assert.equal(ping.changedAt, undefined)
      assert.deepEqual(endpointState(state, 'readyz').answer?.verdict, 'unhealthy')
    })

    it('keeps the last 10 results', () => {
      const reports = Array.from({ length: 15 }, (_, i) => report('readyz', READYZ, { at: T0 + i * 1000, states: i % 2 ? { store: 'failed' } : {} }))
      const store = rowOf(stateWith(reports), 'store')!
      assert.equal(HISTORY_LENGTH, 10)
      assert.equal(store.history.length, 10)
      // Results 5..14: odd ones failed.
      assert.deepEqual(store.history, Array.from({ length: 10 }, (_, i) => ((i + 5) % 2 ? 'failed' : 'ok')))
    })

    it('keeps the rows (stale) while the server is unreachable, with unknown results', () => {
      const state = stateWith([report('readyz', READYZ, { at: T0 }), unreachable('readyz', T0 + 2000)])
      const e = endpointState(state, 'readyz')
      assert.equal(e.reachable, false)
      assert.equal(e.stale, true)
      assert.equal(e.checks.length, READYZ.length)
      assert.deepEqual(rowOf(state, 'store')?.history, ['ok', 'unknown'])
      assert.equal(rowOf(state, 'store')?.since, T0)
      assert.deepEqual(e.answer, { verdict: 'healthy', statusCode: 200, at: T0 }, 'the last answer is kept')
      assert.equal(state.now, T0 + 2000)
    })

    it('keeps the rows (stale) when an answer lists no checks (e.g. 403)', () => {
      const forbidden = { ...report('readyz', [], { at: T0 + 2000, statusCode: 403 }), body: 'forbidden' }
      const state = stateWith([report('readyz', READYZ), forbidden])
      const e = endpointState(state, 'readyz')
      assert.equal(e.reachable, true)
      assert.equal(e.stale, true)
      assert.equal(e.checks.length, READYZ.length)
      assert.equal(e.answer?.statusCode, 403)
    })

    it('adds checks that appear and drops checks no longer listed', () => {
      const state = stateWith([report('readyz', ['ping', 'log'], { at: T0 }), report('readyz', ['ping', 'store'], { at: T0 + 1000 })])
      assert.deepEqual(activeRows(state).map((r) => r.name), ['ping', 'store'])
      assert.deepEqual(rowOf(state, 'store')?.history, ['ok'])
      assert.equal(rowOf(state, 'store')?.since, T0 + 1000)
    })

    it('keeps the selection on the same check when the list changes', () => {
      let state = stateWith([report('readyz', ['ping', 'log', 'store'])])
      state = moveSelection(state, 2)
      assert.equal(selectedRow(state)?.name, 'store')
      state = applyReport(state, report('readyz', ['store', 'ping'], { at: T0 + 1000 }))
      assert.equal(selectedRow(state)?.name, 'store')
      state = applyReport(state, report('readyz', ['ping'], { at: T0 + 2000 }))
      assert.equal(selectedRow(state)?.name, 'ping', 'clamped when the check is gone')
    })

    it('does not change the state it is given', () => {
      const before = stateWith([report('readyz', READYZ)])
      const copy = structuredClone(before)
      applyReport(before, report('readyz', READYZ, { at: T0 + 1000, states: { store: 'failed' } }))
      assert.deepEqual(before, copy)
    })
  })

  describe('freshness', () => {
    it('highlights a change for two intervals', () => {
      const changed = stateWith([report('readyz', READYZ, { at: T0 }), report('readyz', READYZ, { at: T0 + 2000, states: { store: 'failed' } })])
      assert.equal(isFresh(rowOf(changed, 'store')!, changed), true)
      assert.equal(isFresh(rowOf(changed, 'ping')!, changed), false, 'never changed')
      const next = applyReport(changed, report('readyz', READYZ, { at: T0 + 4000, states: { store: 'failed' } }))
      assert.equal(isFresh(rowOf(next, 'store')!, next), true, 'one interval later')
      const later = applyReport(next, report('readyz', READYZ, { at: T0 + 6000, states: { store: 'failed' } }))
      assert.equal(isFresh(rowOf(later, 'store')!, later), false, 'two intervals later')
      assert.equal(rowOf(later, 'store')!.since, T0 + 2000)
    })
  })

  describe('user actions', () => {
    it('moveSelection stops at the first and the last row', () => {
      let state = stateWith([report('readyz', READYZ)])
      state = moveSelection(state, -1)
      assert.equal(state.selected, 0)
      state = moveSelection(state, 1)
      assert.equal(selectedRow(state)?.name, 'log')
      state = moveSelection(state, 100)
      assert.equal(state.selected, READYZ.length - 1)
      assert.equal(selectedRow(state)?.name, 'shutdown')
      assert.equal(moveSelection(state, 1), state, 'unchanged state at the end')
      assert.equal(moveSelection(state, -Infinity).selected, 0)
      assert.equal(moveSelection(stateWith([]), 1).selected, 0, 'no rows')
    })

    it('toggleExclude excludes the selected check of the active endpoint, then includes it again', () => {
      let state = moveSelection(stateWith([report('livez', LIVEZ), report('readyz', READYZ)]), 2)
      state = toggleExclude(state)
      assert.deepEqual(endpointState(state, 'readyz').excludes, ['store'])
      assert.deepEqual(endpointState(state, 'livez').excludes, [], 'only the active endpoint')
      state = toggleExclude(moveSelection(state, 1))
      assert.deepEqual(endpointState(state, 'readyz').excludes, ['store', 'poststarthook/start-apiserver-admission-initializer'])
      state = toggleExclude(moveSelection(state, -1))
      assert.deepEqual(endpointState(state, 'readyz').excludes, ['poststarthook/start-apiserver-admission-initializer'])
      const empty = stateWith([])
      assert.equal(toggleExclude(empty), empty, 'nothing selected')
    })

    it('switchEndpoint cycles the endpoints and keeps the selected check by name', () => {
      let state = stateWith([report('livez', LIVEZ), report('readyz', READYZ)], { endpoints: ['livez', 'readyz', 'healthz'] })
      state = moveSelection(state, 2)
      state = switchEndpoint(state)
      assert.equal(state.active, 'healthz')
      assert.equal(state.selected, 0, 'healthz has no rows yet')
      state = switchEndpoint(state)
      assert.equal(state.active, 'livez')
      state = moveSelection(state, 2)
      state = switchEndpoint(state)
      assert.equal(state.active, 'readyz')
      assert.equal(selectedRow(state)?.name, 'store')
      state = moveSelection(state, 100)
      assert.equal(selectedRow(state)?.name, 'shutdown')
      state = switchEndpoint(state, 'livez')
      assert.equal(state.active, 'livez')
      assert.equal(selectedRow(state)?.name, LIVEZ[LIVEZ.length - 1], 'shutdown is not a livez check: clamped')
      assert.equal(switchEndpoint(state, 'livez'), state)
    })
  })

  describe('changes', () => {
    it('lists every check once on the first report, then the verdict', () => {
      const before = stateWith([])
      const after = applyReport(before, report('readyz', READYZ, { states: { shutdown: 'excluded' } }))
      const events = changes(before, after)
      assert.equal(events.length, READYZ.length + 1)
      assert.deepEqual(events[0], { kind: 'check', endpoint: 'readyz', at: T0, name: 'ping', from: undefined, to: 'ok' })
      assert.deepEqual(events[READYZ.length - 1], { kind: 'check', endpoint: 'readyz', at: T0, name: 'shutdown', from: undefined, to: 'excluded' })
      assert.deepEqual(events[READYZ.length], { kind: 'verdict', endpoint: 'readyz', at: T0, from: undefined, to: 'healthy', statusCode: 200 })
    })

    it('reports only what changed, with the verdict', () => {
      const before = stateWith([report('readyz', READYZ)])
      const same = applyReport(before, report('readyz', READYZ, { at: T0 + 2000 }))
      assert.deepEqual(changes(before, same), [])
      assert.deepEqual(changes(same, same), [], 'no new report')
      const failed = applyReport(same, report('readyz', READYZ, { at: T0 + 4000, states: { store: 'failed' } }))
      assert.deepEqual(changes(same, failed), [
        { kind: 'check', endpoint: 'readyz', at: T0 + 4000, name: 'store', from: 'ok', to: 'failed' },
        { kind: 'verdict', endpoint: 'readyz', at: T0 + 4000, from: 'healthy', to: 'unhealthy', statusCode: 500 },
      ])
    })

    it('reports unreachable once, and recovery compared with the last known states', () => {
      const up = stateWith([report('readyz', READYZ)])
      const down = applyReport(up, unreachable('readyz', T0 + 2000))
      assert.deepEqual(changes(up, down), [{ kind: 'unreachable', endpoint: 'readyz', at: T0 + 2000, error: 'connect ECONNREFUSED 127.0.0.1:6443' }])
      const still = applyReport(down, unreachable('readyz', T0 + 4000, 'timeout'))
      assert.deepEqual(changes(down, still), [])
      const back = applyReport(still, report('readyz', READYZ, { at: T0 + 6000, states: { shutdown: 'failed' } }))
      assert.deepEqual(changes(still, back), [
        { kind: 'reachable', endpoint: 'readyz', at: T0 + 6000, statusCode: 500 },
        { kind: 'check', endpoint: 'readyz', at: T0 + 6000, name: 'shutdown', from: 'ok', to: 'failed' },
        { kind: 'verdict', endpoint: 'readyz', at: T0 + 6000, from: 'healthy', to: 'unhealthy', statusCode: 500 },
      ])
      const backHealthy = applyReport(still, report('readyz', READYZ, { at: T0 + 6000 }))
      assert.deepEqual(changes(still, backHealthy), [{ kind: 'reachable', endpoint: 'readyz', at: T0 + 6000, statusCode: 200 }])
    })

    it('reports an unreachable server on the first poll, and its first answer in full', () => {
      const before = stateWith([])
      const down = applyReport(before, unreachable('livez', T0))
      assert.deepEqual(changes(before, down), [{ kind: 'unreachable', endpoint: 'livez', at: T0, error: 'connect ECONNREFUSED 127.0.0.1:6443' }])
      const up = applyReport(down, report('livez', ['ping'], { at: T0 + 1000 }))
      assert.deepEqual(changes(down, up), [
        { kind: 'reachable', endpoint: 'livez', at: T0 + 1000, statusCode: 200 },
        { kind: 'check', endpoint: 'livez', at: T0 + 1000, name: 'ping', from: undefined, to: 'ok' },
        { kind: 'verdict', endpoint: 'livez', at: T0 + 1000, from: undefined, to: 'healthy', statusCode: 200 },
      ])
    })

    it('reports checks no longer listed, and endpoints separately', () => {
      const before = stateWith([report('livez', ['ping', 'log']), report('readyz', ['ping'])])
      const after = applyReport(before, report('livez', ['ping'], { at: T0 + 1000 }))
      assert.deepEqual(changes(before, after), [{ kind: 'check', endpoint: 'livez', at: T0 + 1000, name: 'log', from: 'ok' }])
    })

    it('a verdict change without check changes (e.g. 403 without a report) is reported', () => {
      const before = stateWith([report('readyz', READYZ)])
      const after = applyReport(before, { ...report('readyz', [], { at: T0 + 1000, statusCode: 403 }), body: 'forbidden' })
      assert.deepEqual(changes(before, after), [{ kind: 'verdict', endpoint: 'readyz', at: T0 + 1000, from: 'healthy', to: 'unhealthy', statusCode: 403 }])
    })
  })
})
