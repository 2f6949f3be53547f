import assert from 'node:assert/strict'
import { rfc3339Nano, seatSeconds, tabwrite } from '../../../src/server/flowcontrol/debug-dump.js'

describe('flow control: debug dump formatting', () => {
  it('aligns cells as Go text/tabwriter (minwidth 8, padding 1); the last cell of a line is not padded', () => {
    const text = tabwrite([
      ['PriorityLevelName,', 'IsIdle,', 'X'],
      ['exempt,', 'true,', 'longer than the header'],
    ])
    assert.equal(text, 'PriorityLevelName, IsIdle, X\nexempt,            true,   longer than the header\n')
  })

  it("formats times as Go's RFC3339Nano in UTC and work as seat-seconds", () => {
    assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 120)), '2026-01-02T03:04:05.12Z')
    assert.equal(rfc3339Nano(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '2026-01-02T03:04:05Z')
    assert.equal(rfc3339Nano(undefined), '0001-01-01T00:00:00Z', "Go's zero time for a request not started")
    assert.equal(seatSeconds(0), '0.00000000ss')
    assert.equal(seatSeconds(0.003), '0.00300000ss')
    assert.equal(seatSeconds(12.5), '12.50000000ss')
  })
})
