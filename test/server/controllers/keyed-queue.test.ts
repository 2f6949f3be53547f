/**
 * The controllers' work queue: a failed key is synced again after a back-off, and a key asked
 * for later comes back when the (fake) clock reaches that time, not before.
 */
import assert from 'node:assert/strict'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { KeyedQueue } from '../../../src/server/controllers/kit/keyed-queue.js'
import { eventually } from '../api/support.js'

describe('controllers: keyed work queue', () => {
  let queue: KeyedQueue | undefined
  afterEach(() => queue?.stop())

  it('retries a failing key until it syncs, reporting each failure', async () => {
    const calls: string[] = []
    const errors: unknown[] = []
    queue = new KeyedQueue(
      async (key) => {
        calls.push(key)
        if (calls.length < 3) throw new Error('store busy')
      },
      { onError: (err) => errors.push(err) },
    )
    queue.start()
    queue.add('default/a')
    await eventually(async () => calls.length === 3, 'three attempts')
    assert.equal(errors.length, 2)
    await new Promise((r) => setTimeout(r, 500))
    assert.equal(calls.length, 3, 'no attempt after the success')
  })

  it('brings a key back when the clock reaches the time asked for', async () => {
    const clock = new FakeClock(1_000_000)
    const calls: string[] = []
    queue = new KeyedQueue(async (key) => void calls.push(key), { clock, recheckMs: 10 })
    queue.start()
    queue.addAfter('default/later', 60_000)
    await new Promise((r) => setTimeout(r, 100))
    assert.deepEqual(calls, [])
    clock.advance(60_000)
    await eventually(async () => calls.length === 1, 'the key back')
  })
})
