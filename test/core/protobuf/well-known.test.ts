/**
 * The JSON forms of metav1.Time, MicroTime and Duration, against what Go prints: time.RFC3339 and
 * metav1's RFC3339Micro layouts in UTC, and time.Duration.String() (examples from the Go docs).
 */
import assert from 'node:assert/strict'
import { ProtobufError } from '../../../src/core/protobuf/errors.js'
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseTimestamp } from '../../../src/core/protobuf/well-known.js'

describe('protobuf codec: times and durations', () => {
  it('parses RFC 3339 times with offsets and fractions to Unix seconds and nanos', () => {
    assert.deepEqual(parseTimestamp('2024-01-02T03:04:05Z', 't'), { seconds: 1704164645, nanos: 0 })
    assert.deepEqual(parseTimestamp('2024-01-02T05:04:05+02:00', 't'), { seconds: 1704164645, nanos: 0 })
    assert.deepEqual(parseTimestamp('2024-01-01T22:34:05.25-04:30', 't'), { seconds: 1704164645, nanos: 250000000 })
    assert.deepEqual(parseTimestamp('1970-01-01T00:00:00.000000001Z', 't'), { seconds: 0, nanos: 1 })
    assert.deepEqual(parseTimestamp('1969-12-31T23:59:59Z', 't'), { seconds: -1, nanos: 0 })
    assert.throws(() => parseTimestamp('2024-01-02 03:04:05', 'metadata.creationTimestamp'), (e: Error) => e instanceof ProtobufError && e.message.startsWith('metadata.creationTimestamp: '))
  })

  it('prints Time in UTC with second precision and MicroTime with six digits', () => {
    assert.equal(formatTime({ seconds: 1704164645, nanos: 999999999 }), '2024-01-02T03:04:05Z')
    assert.equal(formatTime({ seconds: -1, nanos: 0 }), '1969-12-31T23:59:59Z')
    assert.equal(formatMicroTime({ seconds: 1704164645, nanos: 123456789 }), '2024-01-02T03:04:05.123456Z')
    assert.equal(formatMicroTime({ seconds: 1704164645, nanos: 0 }), '2024-01-02T03:04:05.000000Z')
    // Calendar edges: a leap day, 2100 (not a leap year), Go's zero time (year 1), the last second of 9999.
    assert.equal(formatTime({ seconds: 951782400, nanos: 0 }), '2000-02-29T00:00:00Z')
    assert.equal(formatTime({ seconds: 4107542399, nanos: 0 }), '2100-02-28T23:59:59Z')
    assert.equal(formatTime({ seconds: 4107542400, nanos: 0 }), '2100-03-01T00:00:00Z')
    assert.equal(formatTime({ seconds: -62135596800, nanos: 0 }), '0001-01-01T00:00:00Z')
    assert.equal(formatTime({ seconds: 253402300799, nanos: 0 }), '9999-12-31T23:59:59Z')
    assert.deepEqual(parseTimestamp('2000-02-29T00:00:00Z', 't'), { seconds: 951782400, nanos: 0 })
    assert.deepEqual(parseTimestamp('2000-02-29t00:00:00z', 't'), { seconds: 951782400, nanos: 0 })
  })

  it('prints durations as Go does', () => {
    const h = 3600e9
    const m = 60e9
    const s = 1e9
    assert.equal(formatDuration(h + 2 * m + 300e6), '1h2m0.3s')
    assert.equal(formatDuration(300e6), '300ms')
    assert.equal(formatDuration(h + 2 * m + 3 * s), '1h2m3s')
    assert.equal(formatDuration(90 * m), '1h30m0s')
    assert.equal(formatDuration(1500e6), '1.5s')
    assert.equal(formatDuration(1000), '1µs')
    assert.equal(formatDuration(1500), '1.5µs')
    assert.equal(formatDuration(2), '2ns')
    assert.equal(formatDuration(0), '0s')
    assert.equal(formatDuration(-5 * s), '-5s')
    assert.equal(formatDuration(61 * s), '1m1s')
  })

  it('parses what time.ParseDuration accepts', () => {
    assert.equal(parseDuration('1h15m30.918273645s', 'd'), 3600e9 + 15 * 60e9 + 30.918273645e9)
    assert.equal(parseDuration('300ms', 'd'), 300e6)
    assert.equal(parseDuration('-1.5h', 'd'), -1.5 * 3600e9)
    assert.equal(parseDuration('1µs', 'd'), 1000)
    assert.equal(parseDuration('1us', 'd'), 1000)
    assert.equal(parseDuration('0', 'd'), 0)
    for (const bad of ['', '1', 'h', '1x', '1h-2m']) assert.throws(() => parseDuration(bad, 'd'), ProtobufError, bad)
  })
})
