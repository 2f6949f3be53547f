/**
 * The modes as the reference's AuditBatchOptions.wrapBackend makes them: blocking hides a
 * backend's refusal from the request, blocking-strict passes it on, batch always accepts;
 * truncation wraps them all.
 */
import assert from 'node:assert/strict'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { type AuditBackendOptions, type AuditMode, backendOptions, wrapBackend } from '../../../src/server/audit/mode.js'
import type { AuditBackendConfig } from '../../../src/server/config.js'
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

describe("a backend's options (the reference's validateBackendBatchOptions, AuditTruncateOptions.Validate)", () => {
  const config: AuditBackendConfig = {
    mode: 'batch',
    version: 'audit.k8s.io/v1',
    batchBufferSize: 10000,
    batchMaxSize: 400,
    batchMaxWaitMs: 30_000,
    batchThrottleEnable: true,
    batchThrottleQps: 10,
    batchThrottleBurst: 15,
    truncateEnabled: true,
    truncateMaxBatchSize: 10485760,
    truncateMaxEventSize: 102400,
  }

  it('makes the batch, throttle and truncate settings of valid options', () => {
    assert.deepEqual(backendOptions('webhook', config, true), {
      mode: 'batch',
      batch: { bufferSize: 10000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttle: { qps: 10, burst: 15 }, asyncDelegate: true },
      truncate: { maxEventSize: 102400, maxBatchSize: 10485760 },
    })
  })

  const invalid: [string, Partial<AuditBackendConfig>, string][] = [
    ['buffer size', { batchBufferSize: 0 }, 'invalid audit batch webhook buffer size 0, must be a positive number'],
    ['max batch size', { batchMaxSize: -1 }, 'invalid audit batch webhook max batch size -1, must be a positive number'],
    ['throttle QPS', { batchThrottleQps: 0 }, 'invalid audit batch webhook throttle QPS 0, must be a positive number'],
    ['throttle burst', { batchThrottleBurst: 0 }, 'invalid audit batch webhook throttle burst 0, must be a positive number'],
    ['max event size', { truncateMaxEventSize: 0 }, 'invalid audit truncate webhook max event size 0, must be a positive number'],
    ['max batch size under max event size', { truncateMaxBatchSize: 100 }, 'invalid audit truncate webhook max batch size 100, must be greater than max event size (102400)'],
    ['version', { version: 'audit.k8s.io/v1beta1' }, 'invalid group version, allowed versions are ["audit.k8s.io/v1"]'],
  ]
  for (const [what, change, message] of invalid) {
    it(`refuses an invalid ${what}`, () => {
      assert.throws(() => backendOptions('webhook', { ...config, ...change }, true), { message })
    })
  }

  it('checks batch options only in batch mode', () => {
    assert.equal(backendOptions('log', { ...config, mode: 'blocking', batchBufferSize: 0 }, false).mode, 'blocking')
  })
})
