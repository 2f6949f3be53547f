/**
 * The modes as the reference's AuditBatchOptions.wrapBackend makes them: blocking hides a
 * backend's refusal from the request, blocking-strict passes it on, batch always accepts;
 * truncation wraps them all.
 */
import assert from 'node:assert/strict'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { type AuditBackendOptions, type AuditMode, wrapBackend } from '../../../src/server/audit/mode.js'
import { ignorePluginErrors } from '../../../src/server/audit/plugin-error.js'

class Refusing implements AuditBackend {
  readonly name = 'log'
  seen = 0
  processEvents(...events: AuditEvent[]): boolean {
    this.seen += events.length
    return false
  }
  run(): void {}
  async shutdown(): Promise<void> {}
}

const options = (mode: AuditMode, truncate = false): AuditBackendOptions => ({
  mode,
  batch: { bufferSize: 10, maxBatchSize: 1, maxBatchWaitMs: 0, asyncDelegate: false },
  ...(truncate ? { truncate: { maxEventSize: 10, maxBatchSize: 100 } } : {}),
})

describe('audit modes', () => {
  it("blocking: the backend gets the event at once, and its refusal fails no request", () => {
    const backend = new Refusing()
    assert.equal(wrapBackend(backend, options('blocking'), ignorePluginErrors).processEvents({} as AuditEvent), true)
    assert.equal(backend.seen, 1)
  })

  it("blocking-strict: the backend's refusal is the request's", () => {
    const backend = new Refusing()
    assert.equal(wrapBackend(backend, options('blocking-strict'), ignorePluginErrors).processEvents({} as AuditEvent), false)
    assert.equal(backend.seen, 1)
  })

  it('batch: accepted into the buffer, handed over later', async () => {
    const backend = new Refusing()
    const wrapped = wrapBackend(backend, options('batch'), ignorePluginErrors)
    assert.equal(wrapped.processEvents({} as AuditEvent), true)
    assert.equal(backend.seen, 0)
    wrapped.run()
    await wrapped.shutdown()
    assert.equal(backend.seen, 1)
  })

  it('truncation comes first: an event too large never reaches the mode', () => {
    const backend = new Refusing()
    const dropped: string[] = []
    const wrapped = wrapBackend(backend, options('blocking-strict', true), (plugin) => dropped.push(plugin))
    wrapped.processEvents({ level: 'Metadata', auditID: 'far-too-long-for-ten-bytes' } as AuditEvent)
    assert.equal(backend.seen, 0)
    assert.deepEqual(dropped, ['truncate'])
  })
})
