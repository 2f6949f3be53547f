/**
 * The cluster's clock (`cluster start --clock`): it starts at the given instant and runs at the
 * real pace, and it maps the API server's own timestamps (the system clock's) onto itself, so
 * that a CronJob created "now" has missed nothing before its creation on the cluster's clock.
 */
import assert from 'node:assert/strict'
import { FakeClock, SYSTEM_CLOCK, clockStartingAt, fromSystemTime } from '../../../src/server/controllers/clock.js'

describe('controllers: the cluster clock', () => {
  it('starts at the given instant and moves with the real clock', () => {
    const real = new FakeClock(1_000_000)
    const clock = clockStartingAt(Date.parse('2030-01-01T00:00:50Z'), real)
    assert.equal(new Date(clock.now()).toISOString(), '2030-01-01T00:00:50.000Z')
    real.advance(10_000)
    assert.equal(new Date(clock.now()).toISOString(), '2030-01-01T00:01:00.000Z')
  })

  it("maps a system-clock timestamp onto the cluster's time; the system clock maps it to itself", () => {
    const real = new FakeClock(5_000)
    const clock = clockStartingAt(Date.parse('2030-01-01T00:00:00Z'), real)
    assert.equal(new Date(fromSystemTime(clock, 6_000)).toISOString(), '2030-01-01T00:00:01.000Z')
    assert.equal(fromSystemTime(SYSTEM_CLOCK, 6_000), 6_000)
  })
})
