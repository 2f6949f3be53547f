/**
 * Truncation, after the reference's plugin/pkg/audit/truncate/truncate_test.go: bodies go
 * first (with the truncated annotation), then the event; batches are split by size.
 */
import assert from 'node:assert/strict'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { TRUNCATE_PLUGIN, type TruncateConfig, TruncatingBackend } from '../../../src/server/audit/truncate.js'
import { FakeBackend } from './fake-backend.js'

const defaultConfig: TruncateConfig = { maxBatchSize: 4 * 1024 * 1024, maxEventSize: 100 * 1024 }

const cases: { desc: string; event: Partial<AuditEvent>; wantDropped?: boolean; wantTruncated?: boolean }[] = [
  { desc: 'Empty event should not be truncated', event: {} },
  {
    desc: 'Event with too large body should be truncated',
    event: { level: 'Request', requestObject: 'A'.repeat(defaultConfig.maxEventSize) },
    wantTruncated: true,
  },
  {
    desc: 'Event with too large metadata should be dropped',
    event: { annotations: { key: 'A'.repeat(defaultConfig.maxEventSize) } },
    wantDropped: true,
  },
]

describe('audit truncation (truncate backend)', () => {
  for (const tc of cases) {
    it(tc.desc, () => {
      const fake = new FakeBackend()
      const dropped: string[] = []
      const backend = new TruncatingBackend(fake, defaultConfig, (plugin, _error, impacted) => dropped.push(...impacted.map(() => plugin)))
      backend.processEvents(tc.event as AuditEvent)
      const events = fake.batches.flat()
      assert.ok(fake.batches.every((b) => b.length === 1), 'Expected single event in batch')
      assert.equal(events.length === 1, !tc.wantDropped, 'Incorrect event presence')
      assert.deepEqual(dropped, tc.wantDropped ? [TRUNCATE_PLUGIN] : [])
      if (tc.wantTruncated) {
        const event = events[0]!
        assert.equal(event.annotations?.['audit.k8s.io/truncated'], 'true', 'Annotation should be present')
        assert.equal(event.requestObject, undefined, 'After truncation request should be nil')
        assert.equal(event.responseObject, undefined, 'After truncation response should be nil')
        assert.notEqual(tc.event.requestObject, undefined, "the caller's event keeps its body")
      }
    })
  }

  it('drops a Metadata event with a large body rather than truncating it (only Request and up lose bodies)', () => {
    const fake = new FakeBackend()
    new TruncatingBackend(fake, defaultConfig).processEvents({ level: 'Metadata', responseObject: 'A'.repeat(defaultConfig.maxEventSize) } as AuditEvent)
    assert.deepEqual(fake.batches, [])
  })

  const splitting: { desc: string; config: TruncateConfig; events: Partial<AuditEvent>[]; wantBatchCount: number }[] = [
    { desc: 'Events fitting in one batch should not be split', config: defaultConfig, events: [{}], wantBatchCount: 1 },
    {
      desc: 'Events not fitting in one batch should be split',
      config: { maxEventSize: defaultConfig.maxEventSize, maxBatchSize: 1 },
      events: [{ annotations: { key: 'A'.repeat(50) } }, { annotations: { key: 'A'.repeat(50) } }],
      wantBatchCount: 2,
    },
  ]
  for (const tc of splitting) {
    it(tc.desc, () => {
      const fake = new FakeBackend()
      new TruncatingBackend(fake, tc.config).processEvents(...(tc.events as AuditEvent[]))
      assert.equal(fake.batches.length, tc.wantBatchCount)
    })
  }

  it("answers false when the backend refuses a batch, waiting for a backend's promise", async () => {
    const refusing = { ...new FakeBackend(), name: 'r', run() {}, async shutdown() {}, processEvents: async () => false }
    assert.equal(await new TruncatingBackend(refusing, defaultConfig).processEvents({} as AuditEvent), false)
  })
})
