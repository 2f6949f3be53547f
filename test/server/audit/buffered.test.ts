/**
 * The batch mode, after the reference's plugin/pkg/audit/buffered/buffered_test.go: batches
 * of the max size go at once, partial ones after the wait or at shutdown, a full buffer drops
 * what does not fit (and reports it), events after shutdown are refused, shutdown waits for
 * the batches under way.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { type BatchConfig, BUFFERED_PLUGIN, BufferedBackend } from '../../../src/server/audit/buffered.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import type { PluginErrorHandler } from '../../../src/server/audit/plugin-error.js'
import { FakeBackend, newEvents } from './fake-backend.js'

/** The reference's testBatchConfig; its wait is wait.ForeverTestTimeout (30 s): never, in a test. */
function testBatchConfig(): BatchConfig {
  return { bufferSize: 100, maxBatchSize: 10, maxBatchWaitMs: 30_000, asyncDelegate: true }
}

/** Resolves once `check` holds (polls; the test's own timeout bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5)
}

function errors(): { handler: PluginErrorHandler; seen: { plugin: string; error: string; count: number }[] } {
  const seen: { plugin: string; error: string; count: number }[] = []
  return { handler: (plugin, error, impacted) => seen.push({ plugin, error, count: impacted.length }), seen }
}

const sizes = (batches: AuditEvent[][]) => batches.map((b) => b.length)

describe('audit batch mode (buffered backend)', () => {
  it('hands over a full batch at once, and the rest at shutdown (collectEvents: max batch size, stop)', async () => {
    const fake = new FakeBackend()
    const backend = new BufferedBackend(fake, testBatchConfig())
    backend.run()
    assert.ok(fake.running, 'the delegate runs with the buffered backend')
    backend.processEvents(...newEvents(11))
    await until(() => fake.batches.length === 1)
    assert.deepEqual(sizes(fake.batches), [10], 'Expected full batch')
    await sleep(20)
    assert.deepEqual(sizes(fake.batches), [10], 'a partial batch waits for the timer')
    await backend.shutdown()
    assert.deepEqual(sizes(fake.batches), [10, 1], 'the partial batch goes when the backend stops')
    assert.ok(fake.stopped, 'the delegate shuts down with the buffered backend')
  })

  it('hands over a partial batch when the batch wait runs out (collectEvents: timer)', async () => {
    const fake = new FakeBackend()
    const backend = new BufferedBackend(fake, { ...testBatchConfig(), maxBatchWaitMs: 10 })
    backend.run()
    backend.processEvents(...newEvents(2))
    await until(() => fake.batches.length === 1)
    assert.deepEqual(sizes(fake.batches), [2], 'Expected partial batch')
    backend.processEvents(...newEvents(3))
    await until(() => fake.batches.length === 2)
    assert.deepEqual(sizes(fake.batches), [2, 3])
    await backend.shutdown()
  })

  it('without batching hands over one event at a time and drains the queue (TestUnbatchedBackendCollectEvents)', async () => {
    const fake = new FakeBackend()
    const backend = new BufferedBackend(fake, { ...testBatchConfig(), maxBatchSize: 1 })
    backend.run()
    backend.processEvents(...newEvents(3))
    await until(() => fake.batches.length === 3)
    assert.deepEqual(sizes(fake.batches), [1, 1, 1], 'Expected single event')
    await backend.shutdown()
    assert.equal(fake.batches.length, 3, 'Empty final batch')
  })

  it('takes no events after it stopped and reports them (TestBufferedBackendProcessEventsAfterStop)', async () => {
    const fake = new FakeBackend()
    const { handler, seen } = errors()
    const backend = new BufferedBackend(fake, testBatchConfig(), handler)
    backend.run()
    await backend.shutdown()
    assert.equal(backend.processEvents(...newEvents(1)), true)
    assert.deepEqual(fake.batches, [], 'processed events after the backed has been stopped')
    assert.deepEqual(seen, [{ plugin: BUFFERED_PLUGIN, error: 'audit backend shut down', count: 1 }])
  })

  it('drops what a full buffer cannot hold, reports it and never blocks (TestBufferedBackendProcessEventsBufferFull)', async () => {
    const fake = new FakeBackend()
    const { handler, seen } = errors()
    const backend = new BufferedBackend(fake, { ...testBatchConfig(), bufferSize: 1 }, handler)
    assert.equal(backend.processEvents(...newEvents(2)), true, 'batch mode accepts whatever happens')
    assert.deepEqual(seen, [{ plugin: BUFFERED_PLUGIN, error: 'audit buffer queue blocked', count: 1 }])
    backend.run()
    await backend.shutdown()
    assert.deepEqual(sizes(fake.batches), [1], 'buffed contains more elements than it should')
  })

  it('keeps copies: the caller may change its event after handing it over', async () => {
    const fake = new FakeBackend()
    const backend = new BufferedBackend(fake, testBatchConfig())
    backend.run()
    const event = { auditID: 'a', stage: 'RequestReceived' } as AuditEvent
    backend.processEvents(event)
    event.stage = 'ResponseComplete'
    backend.processEvents(event)
    await backend.shutdown()
    assert.deepEqual(fake.batches[0]!.map((e) => e.stage), ['RequestReceived', 'ResponseComplete'])
  })

  it('waits at shutdown for the batches under way (TestBufferedBackendShutdownWaitsForDelegatedCalls)', async () => {
    let started!: () => void
    const callStarted = new Promise<void>((resolve) => (started = resolve))
    let end!: () => void
    const callEnd = new Promise<void>((resolve) => (end = resolve))
    const fake = new FakeBackend(() => {
      started()
      return callEnd
    })
    const config = testBatchConfig()
    const backend = new BufferedBackend(fake, config)
    backend.run()
    backend.processEvents(...newEvents(config.maxBatchSize))
    await callStarted
    let shutDown = false
    const shutdown = backend.shutdown().then(() => (shutDown = true))
    await sleep(100)
    assert.equal(shutDown, false, 'Shutdown exited before delegated call ended')
    end()
    await shutdown
    assert.ok(shutDown)
  })

  for (const asyncDelegate of [true, false]) {
    it(`hands full batches to the delegate (TestDelegateProcessEvents, async: ${asyncDelegate})`, async () => {
      const config = { ...testBatchConfig(), asyncDelegate }
      const fake = new FakeBackend()
      const backend = new BufferedBackend(fake, config)
      backend.run()
      for (let i = 0; i < 5; i++) backend.processEvents(...newEvents(config.maxBatchSize))
      await backend.shutdown()
      assert.deepEqual(sizes(fake.batches), [10, 10, 10, 10, 10], 'Unexpected batch')
    })
  }

  it('one batch at a time when the delegate is called in turn: a slow delegate holds the next batch back', async () => {
    let end!: () => void
    const callEnd = new Promise<void>((resolve) => (end = resolve))
    const fake = new FakeBackend(() => callEnd)
    const backend = new BufferedBackend(fake, { ...testBatchConfig(), maxBatchSize: 1, asyncDelegate: false })
    backend.run()
    backend.processEvents(...newEvents(2))
    await until(() => fake.batches.length === 1)
    await sleep(20)
    assert.equal(fake.batches.length, 1, 'the second batch waits for the first')
    end()
    await backend.shutdown()
    assert.equal(fake.batches.length, 2)
  })

  it('throttles batches: burst at once, then qps a second', async () => {
    const fake = new FakeBackend()
    const backend = new BufferedBackend(fake, { ...testBatchConfig(), maxBatchSize: 1, throttle: { qps: 1, burst: 2 } })
    backend.run()
    backend.processEvents(...newEvents(3))
    await until(() => fake.batches.length === 2)
    await sleep(100)
    assert.equal(fake.batches.length, 2, 'the third batch waits for its token (1 a second)')
    await until(() => fake.batches.length === 3)
    await backend.shutdown()
  })
})
