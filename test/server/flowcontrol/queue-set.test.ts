import assert from 'node:assert/strict'
import { type FlowCounters, QueueSet, type Outcome, type RequestMeta } from '../../../src/server/flowcontrol/queue-set.js'
import { DroppedRequestsTracker } from '../../../src/server/flowcontrol/dropped-requests.js'

const meta = (user: string, seats = 1): RequestMeta => ({
  flowSchema: 'fs',
  distinguisher: user,
  seats,
  userName: user,
  verb: 'list',
  path: '/api/v1/pods',
  namespace: '',
  name: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
})

function recorder() {
  const counters: FlowCounters = { waiting: 0, executing: 0, executingSeats: 0, dispatched: 0, rejected: new Map() }
  return { counters, observer: (_schema: string) => counters }
}

const noCancel = () => {}

describe('flow control: queue set', () => {
  it('a queued request that waits past its wait limit is refused with time-out', async () => {
    const { counters, observer } = recorder()
    const qs = new QueueSet('l', { queues: 4, handSize: 2, queueLengthLimit: 10 }, observer)
    qs.configure(qs.queuing, 1)
    const first = qs.start(meta('a'), 1000, noCancel) as Outcome
    assert.equal(first.execute, true)
    const second = qs.start(meta('b'), 30, noCancel)
    assert.ok(second instanceof Promise, 'no free seat: it waits')
    assert.deepEqual(await second, { execute: false, reason: 'time-out' })
    assert.equal(qs.totals.timedout, 1)
    assert.equal(qs.totals.waiting, 0)
    assert.equal(counters.rejected.get('time-out'), 1)
    assert.equal(counters.waiting, 0)
    assert.equal(counters.executing, 1)
    if (first.execute) first.finish()
    assert.ok(qs.idle)
  })

  it('a queued request whose client goes away is cancelled; the next one runs when the seat frees', async () => {
    const { observer } = recorder()
    const qs = new QueueSet('l', { queues: 1, handSize: 1, queueLengthLimit: 10 }, observer)
    qs.configure(qs.queuing, 1)
    const first = qs.start(meta('a'), 1000, noCancel) as Outcome
    let cancel = () => {}
    const gone = qs.start(meta('b'), 1000, (c) => (cancel = c))
    const next = qs.start(meta('c'), 1000, noCancel)
    cancel()
    assert.deepEqual(await gone, { execute: false, reason: 'cancelled' })
    assert.equal(qs.totals.cancelled, 1)
    if (first.execute) first.finish()
    const outcome = await next
    assert.equal(outcome.execute, true)
    assert.equal(qs.totals.executing, 1)
  })

  it('Reject levels refuse over their limit; a request wider than the limit runs only alone; exempt never refuses', () => {
    const { observer } = recorder()
    const reject = new QueueSet('r', undefined, observer)
    reject.configure(undefined, 2)
    const a = reject.start(meta('a'), 0, noCancel) as Outcome
    const b = reject.start(meta('b'), 0, noCancel) as Outcome
    assert.deepEqual(reject.start(meta('c'), 0, noCancel), { execute: false, reason: 'concurrency-limit' })
    assert.equal(reject.start(meta('wide', 5), 0, noCancel).hasOwnProperty('reason'), true)
    if (a.execute) a.finish()
    if (b.execute) b.finish()
    assert.equal((reject.start(meta('wide', 5), 0, noCancel) as Outcome).execute, true)
    const exempt = new QueueSet('exempt', null, observer)
    for (let i = 0; i < 100; i++) assert.equal((exempt.start(meta(String(i)), 0, noCancel) as Outcome).execute, true)
    assert.equal(exempt.queueless.size, 100)
  })
})

describe('flow control: Retry-After of dropped requests', () => {
  it('starts at 1 s, doubles while drops keep up, and decays when they stop', () => {
    let now = 1_000_000
    const tracker = new DroppedRequestsTracker(() => now)
    assert.equal(tracker.retryAfter('l'), 1)
    // Three drops in a second, then one in the next: the history shows 3 ≥ 3 × 1 → 2.
    for (let i = 0; i < 3; i++) tracker.recordDroppedRequest('l')
    now += 1000
    tracker.recordDroppedRequest('l')
    assert.equal(tracker.retryAfter('l'), 2)
    assert.equal(tracker.retryAfter('other'), 1, 'per priority level')
    // A quiet stretch: one drop after 10 s finds fewer than 2 in the window → back down.
    now += 10_000
    tracker.recordDroppedRequest('l')
    assert.equal(tracker.retryAfter('l'), 1)
  })
})
