import assert from 'node:assert/strict'
import { CheckResults } from '../../../src/server/health/results.js'

describe('CheckResults', () => {
  it('recordPassed counts every check of the list as one passing run, as record does, for the same and for a new list', () => {
    let now = 100
    const told: string[] = []
    const results = new CheckResults(() => now, (word, name, ok) => told.push(`${word}/${name}/${ok}`))
    results.record('readyz', 'store', 'store down', 3)
    const checks = Object.freeze([{ name: 'ping' }, { name: 'store' }])
    results.recordPassed('readyz', checks, 200)
    now = 300
    results.recordPassed('readyz', checks, 300)
    assert.deepEqual(results.lastResults(), [
      { word: 'readyz', name: 'store', ok: true, latencyMs: 0, at: 300, successes: 2, failures: 1 },
      { word: 'readyz', name: 'ping', ok: true, latencyMs: 0, at: 300, successes: 2, failures: 0 },
    ])
    // A list with a check more (one was added): the new check gets its entry.
    results.recordPassed('readyz', Object.freeze([...checks, { name: 'shutdown' }]), 400)
    assert.deepEqual(
      results.lastResults().map((r) => [r.name, r.successes, r.at]),
      [
        ['store', 3, 400],
        ['ping', 3, 400],
        ['shutdown', 1, 400],
      ],
    )
    assert.equal(told.length, 8)
    assert.equal(told.filter((t) => t.endsWith('/true')).length, 7)
  })
})
