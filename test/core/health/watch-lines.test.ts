/** The plain output of `client health watch` (stdout not a terminal) and the `--once` snapshot. */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { EXIT_CODES } from '../../../src/core/health/report.js'
import { applyReport, createWatchState, setExcludes, type WatchState } from '../../../src/core/health/watch-model.js'
import {
  changeLines,
  createLineWriter,
  formatSnapshot,
  formatTimestamp,
  snapshotExitCode,
  verdictLine,
} from '../../../src/core/health/watch-lines.js'
import { LIVEZ, READYZ, T0, report, unreachable } from '../views/watch-fixtures.js'

const TS = (seconds: number) => formatTimestamp(T0 + seconds * 1000)

describe('health watch lines', () => {
  it('formats timestamps as UTC seconds', () => {
    assert.equal(formatTimestamp(T0), '2026-11-22T00:14:03Z')
    assert.equal(formatTimestamp(T0 + 999), '2026-11-22T00:14:03Z')
  })

  it('writes the initial state once, then one line per change: failure, recovery, unreachable, back', () => {
    const lines: string[] = []
    const write = createLineWriter((line) => lines.push(line))
    let state: WatchState = createWatchState({ endpoints: ['livez', 'readyz'], intervalMs: 2000, now: T0 })
    const apply = (r: Parameters<typeof applyReport>[1]) => {
      state = applyReport(state, r)
      write(state)
    }
    const checks = ['ping', 'store', 'shutdown']

    apply(report('livez', ['ping', 'store'], { at: T0 }))
    apply(report('readyz', checks, { at: T0, states: { shutdown: 'excluded' } }))
    assert.deepEqual(lines.splice(0), [
      '2026-11-22T00:14:03Z livez ping ok',
      '2026-11-22T00:14:03Z livez store ok',
      '2026-11-22T00:14:03Z livez verdict healthy (200)',
      '2026-11-22T00:14:03Z readyz ping ok',
      '2026-11-22T00:14:03Z readyz store ok',
      '2026-11-22T00:14:03Z readyz shutdown excluded',
      '2026-11-22T00:14:03Z readyz verdict healthy (200)',
    ])

    apply(report('livez', ['ping', 'store'], { at: T0 + 2000 }))
    apply(report('readyz', checks, { at: T0 + 2000, states: { shutdown: 'excluded' } }))
    assert.deepEqual(lines.splice(0), [], 'nothing changed')

    apply(report('readyz', checks, { at: T0 + 4000, states: { store: 'failed', shutdown: 'excluded' } }))
    assert.deepEqual(lines.splice(0), [`${TS(4)} readyz store ok -> failed`, `${TS(4)} readyz verdict healthy -> unhealthy (500)`])

    apply(report('readyz', checks, { at: T0 + 6000 }))
    assert.deepEqual(lines.splice(0), [
      `${TS(6)} readyz store failed -> ok`,
      `${TS(6)} readyz shutdown excluded -> ok`,
      `${TS(6)} readyz verdict unhealthy -> healthy (200)`,
    ])

    apply(unreachable('livez', T0 + 8000, 'connect ECONNREFUSED 127.0.0.1:6443'))
    apply(unreachable('readyz', T0 + 8000, 'connect ECONNREFUSED\n127.0.0.1:6443'))
    apply(unreachable('readyz', T0 + 10000, 'timeout'))
    assert.deepEqual(lines.splice(0), [
      `${TS(8)} livez server unreachable: connect ECONNREFUSED 127.0.0.1:6443`,
      `${TS(8)} readyz server unreachable: connect ECONNREFUSED 127.0.0.1:6443`,
    ])

    apply(report('readyz', checks, { at: T0 + 12000, states: { store: 'failed' } }))
    assert.deepEqual(lines.splice(0), [
      `${TS(12)} readyz server reachable again (500)`,
      `${TS(12)} readyz store ok -> failed`,
      `${TS(12)} readyz verdict healthy -> unhealthy (500)`,
    ])

    apply(report('readyz', ['ping', 'shutdown'], { at: T0 + 14000 }))
    assert.deepEqual(lines.splice(0), [`${TS(14)} readyz store failed -> removed`, `${TS(14)} readyz verdict unhealthy -> healthy (200)`])
  })

  it('writes nothing for states without a new report (selection, excludes)', () => {
    const lines: string[] = []
    const write = createLineWriter((line) => lines.push(line))
    let state = applyReport(createWatchState({ endpoints: ['readyz'], intervalMs: 1000 }), report('readyz', ['ping']))
    write(state)
    lines.length = 0
    state = setExcludes(state, 'readyz', ['ping'])
    write(state)
    assert.deepEqual(lines, [])
  })

  it('starts with the unreachable line when the server is down at first', () => {
    const before = createWatchState({ endpoints: ['readyz'], intervalMs: 1000 })
    const after = applyReport(before, unreachable('readyz', T0, 'getaddrinfo ENOTFOUND api.example'))
    assert.deepEqual(changeLines(before, after), ['2026-11-22T00:14:03Z readyz server unreachable: getaddrinfo ENOTFOUND api.example'])
  })

  describe('--once', () => {
    it('prints a table of every check of each endpoint, then the verdicts', () => {
      const reports = [
        report('livez', ['ping', 'log'], { latencyMs: 3.4 }),
        { ...report('readyz', ['ping', 'store', 'shutdown'], { latencyMs: 12, states: { store: 'failed', shutdown: 'excluded' } }), warnings: ['etcd is not a check'] },
      ]
      assert.equal(
        formatSnapshot(reports),
        [
          'ENDPOINT  STATE     CHECK',
          'livez     ok        ping',
          'livez     ok        log',
          'readyz    ok        ping',
          'readyz    failed    store',
          'readyz    excluded  shutdown',
          'livez: healthy (200, 3ms)',
          'readyz: unhealthy (500, 12ms): store failed',
          'readyz: warn: etcd is not a check',
          '',
        ].join('\n'),
      )
      assert.equal(snapshotExitCode(reports), EXIT_CODES.unhealthy)
    })

    it('prints all the spec checks for livez and readyz', () => {
      const text = formatSnapshot([report('livez', LIVEZ), report('readyz', READYZ)])
      const lines = text.trimEnd().split('\n')
      assert.equal(lines.length, 1 + LIVEZ.length + READYZ.length + 2)
      for (const name of READYZ) assert.ok(lines.includes(`readyz    ok     ${name}`), name)
      assert.equal(snapshotExitCode([report('livez', LIVEZ), report('readyz', READYZ)]), EXIT_CODES.healthy)
    })

    it('an unreachable server: the verdict line only, exit code 3', () => {
      const reports = [unreachable('livez', T0), unreachable('readyz', T0)]
      assert.equal(
        formatSnapshot(reports),
        'livez: unreachable: connect ECONNREFUSED 127.0.0.1:6443\nreadyz: unreachable: connect ECONNREFUSED 127.0.0.1:6443\n',
      )
      assert.equal(snapshotExitCode(reports), EXIT_CODES.unreachable)
      assert.equal(snapshotExitCode([report('livez', LIVEZ), unreachable('readyz', T0)]), EXIT_CODES.unreachable, 'the worst wins')
      assert.equal(verdictLine(report('readyz', [], { statusCode: 403 })), 'readyz: unhealthy (403, 3ms)')
    })
  })
})
