/**
 * The schedule reading of the CronJob controller, as robfig/cron v3's ParseStandard and Next
 * behave: next matching minute, descriptors, @every from the given time, day-of-month OR
 * day-of-week when neither is `*`, IANA zones, and a wall time a DST transition skips.
 */
import assert from 'node:assert/strict'
import { parseSchedule, rfc1123z, rfc3339In } from '../../../src/server/controllers/cronjob/cron-schedule.js'

const at = (iso: string) => Date.parse(iso)
const next = (schedule: string, from: string, zone = 'UTC') => new Date(parseSchedule(schedule, zone).next(at(from))!).toISOString()

describe('controllers: cron schedules', () => {
  it('finds the next matching minute of the five fields and descriptors', () => {
    assert.equal(next('*/5 * * * *', '2026-03-07T10:17:30Z'), '2026-03-07T10:20:00.000Z')
    assert.equal(next('*/5 * * * *', '2026-03-07T10:20:00Z'), '2026-03-07T10:25:00.000Z', 'strictly after')
    assert.equal(next('0 9 * * 1-5', '2026-03-07T10:17:30Z'), '2026-03-09T09:00:00.000Z', 'Saturday to Monday')
    assert.equal(next('@hourly', '2026-03-07T10:17:30Z'), '2026-03-07T11:00:00.000Z')
    assert.equal(next('@yearly', '2026-03-07T10:17:30Z'), '2027-01-01T00:00:00.000Z')
    assert.equal(next('0 0 * JAN-FEB SUN', '2026-03-07T10:17:30Z'), '2027-01-03T00:00:00.000Z')
  })

  it('takes either day field when neither is a star', () => {
    // 2026-03-10 is a Tuesday: the 15th or any Tuesday.
    assert.equal(next('0 0 15 * 2', '2026-03-09T12:00:00Z'), '2026-03-10T00:00:00.000Z')
    assert.equal(next('0 0 15 * *', '2026-03-09T12:00:00Z'), '2026-03-15T00:00:00.000Z')
  })

  it('runs @every from the given time, in whole seconds', () => {
    assert.equal(next('@every 90s', '2026-03-07T10:17:30.400Z'), '2026-03-07T10:19:00.000Z')
  })

  it('reads the wall clock of the zone, and skips a time DST removes to the hour after', () => {
    assert.equal(next('0 9 * * *', '2026-03-07T10:17:30Z', 'Asia/Tokyo'), '2026-03-08T00:00:00.000Z')
    assert.equal(next('TZ=Asia/Tokyo 0 9 * * *', '2026-03-07T10:17:30Z'), '2026-03-08T00:00:00.000Z')
    assert.equal(next('30 2 * * *', '2026-03-08T00:00:00Z', 'America/New_York'), '2026-03-08T07:30:00.000Z')
  })

  it('formats times as Go RFC3339 in a zone and RFC1123Z', () => {
    assert.equal(rfc3339In(at('2026-03-08T00:00:00Z'), 'Asia/Tokyo'), '2026-03-08T09:00:00+09:00')
    assert.equal(rfc3339In(at('2026-03-08T00:00:00Z'), 'UTC'), '2026-03-08T00:00:00Z')
    assert.equal(rfc3339In(at('2026-01-08T00:00:00Z'), 'America/New_York'), '2026-01-07T19:00:00-05:00')
    assert.equal(rfc1123z(at('2026-03-08T00:00:00Z')), 'Sun, 08 Mar 2026 00:00:00 +0000')
  })
})
