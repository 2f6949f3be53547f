import assert from 'node:assert/strict'
import { rfc3339Now } from '../../../src/core/util/rfc3339-now.js'

describe('rfc3339Now', () => {
  const realNow = Date.now
  afterEach(() => {
    Date.now = realNow
  })

  it('is the current time truncated to whole seconds, and follows the clock from one second to the next', () => {
    Date.now = () => Date.UTC(2026, 10, 27, 2, 30, 0, 999)
    assert.equal(rfc3339Now(), '2026-11-27T02:30:00Z')
    Date.now = () => Date.UTC(2026, 10, 27, 2, 30, 1, 0)
    assert.equal(rfc3339Now(), '2026-11-27T02:30:01Z')
    // A clock set back is followed too.
    Date.now = () => Date.UTC(2025, 0, 1, 0, 0, 0, 500)
    assert.equal(rfc3339Now(), '2025-01-01T00:00:00Z')
  })

  it('agrees with the real clock', () => {
    const before = Math.floor(Date.now() / 1000)
    const text = rfc3339Now()
    const after = Math.floor(Date.now() / 1000)
    assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const seconds = Date.parse(text) / 1000
    assert.ok(seconds >= before && seconds <= after, `${text} is not between ${before} and ${after}`)
  })
})
