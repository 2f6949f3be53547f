import assert from 'node:assert/strict'
import { watchTimeoutMs } from '../../../../src/server/api/handlers/watch.js'

describe('watch: how long a watch runs', () => {
  it("the client's timeoutSeconds wins", () => {
    assert.equal(watchTimeoutMs(7, 1800, () => 0.5), 7_000)
  })

  it('without timeoutSeconds: a random time from --min-request-timeout up to (not including) twice it', () => {
    assert.equal(watchTimeoutMs(undefined, 1, () => 0), 1_000)
    assert.equal(watchTimeoutMs(undefined, 1, () => 0.5), 1_500)
    assert.equal(watchTimeoutMs(undefined, 1800, () => 0.25), 2_250_000)
    const longest = watchTimeoutMs(undefined, 1, () => 1 - Number.EPSILON)
    assert.ok(longest > 1_999 && longest < 2_000, String(longest))
  })

  it('--min-request-timeout=0: the watch never ends on its own', () => {
    assert.equal(watchTimeoutMs(undefined, 0, () => 0.9), 0)
  })

  it('spreads watches started together (Math.random by default)', () => {
    const times = new Set(Array.from({ length: 20 }, () => watchTimeoutMs(undefined, 60)))
    assert.ok(times.size > 1)
    for (const t of times) assert.ok(t >= 60_000 && t < 120_000, String(t))
  })
})
