import assert from 'node:assert/strict'
import { DeadlineQueue } from '../../../src/server/http/deadlines.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('server/http/deadlines: request deadlines on one timer', () => {
  it('fires every deadline not cancelled, in deadline order, and none that was cancelled', async () => {
    const queue = new DeadlineQueue()
    const fired: string[] = []
    const start = Date.now()
    queue.add(start + 20, () => fired.push('a'))
    const b = queue.add(start + 30, () => fired.push('b'))
    queue.add(start + 40, () => fired.push('c'))
    queue.cancel(b)
    queue.cancel(b)
    assert.equal(queue.size, 2)
    await sleep(200)
    assert.deepEqual(fired, ['a', 'c'])
    assert.equal(queue.size, 0)
  })

  it('a deadline earlier than the last one set (a shorter timeout) fires at its own time, before the later ones', async () => {
    const queue = new DeadlineQueue()
    const fired: string[] = []
    const start = Date.now()
    queue.add(start + 150, () => fired.push('long'))
    const short = queue.add(start + 10, () => fired.push('short'))
    queue.add(start + 20, () => fired.push('short, not cancelled'))
    queue.cancel(short)
    await sleep(80)
    assert.deepEqual(fired, ['short, not cancelled'])
    await sleep(250)
    assert.deepEqual(fired, ['short, not cancelled', 'long'])
  })

  it('keeps firing the live deadlines when most are cancelled (the queue compacts itself)', async () => {
    const queue = new DeadlineQueue()
    const fired: number[] = []
    const start = Date.now()
    const entries = Array.from({ length: 5000 }, (_, i) => queue.add(start + 30 + Math.floor(i / 100), () => fired.push(i)))
    entries.forEach((entry, i) => i % 1000 !== 7 && queue.cancel(entry))
    assert.equal(queue.size, 5)
    await sleep(300)
    assert.deepEqual(fired, [7, 1007, 2007, 3007, 4007])
    assert.equal(queue.size, 0)
  })

  it('a deadline added after the queue ran empty is armed again', async () => {
    const queue = new DeadlineQueue()
    const fired: string[] = []
    queue.add(Date.now() + 5, () => fired.push('first'))
    await sleep(60)
    queue.add(Date.now() + 5, () => fired.push('second'))
    await sleep(60)
    assert.deepEqual(fired, ['first', 'second'])
  })
})
