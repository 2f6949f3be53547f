import assert from 'node:assert/strict'
import { FlowController } from '../../../src/server/flowcontrol/controller.js'
import { danglingUpdates } from '../../../src/server/flowcontrol/flow-schema-status.js'
import type { Outcome } from '../../../src/server/flowcontrol/queue-set.js'
import type { FlowObject } from '../../../src/server/flowcontrol/flow-schemas.js'

const limited = (name: string, shares: number, extra: Record<string, unknown> = {}): FlowObject => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' }, ...extra } },
})
const meta = (schema: string) => ({ flowSchema: schema, distinguisher: '', seats: 1, userName: 'u', verb: 'get', path: '/', namespace: '', name: '', apiGroup: '', apiVersion: '', resource: '', subresource: '' })

describe('flow control: configuration controller', () => {
  it('before the store is read, the default configuration; then the mandatory levels are imagined beside the stored ones', () => {
    const c = new FlowController({ serverConcurrencyLimit: 600 })
    assert.deepEqual([...c.levels.keys()].sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'])
    assert.equal(c.levels.get('workload-low')!.limits.nominalCL, 245)
    c.digest({ schemas: [], levels: [limited('mine', 5)] })
    // Idle levels no longer configured are dropped; exempt (0 shares) and catch-all (5) are imagined.
    assert.deepEqual([...c.levels.keys()].sort(), ['catch-all', 'exempt', 'mine'])
    assert.equal(c.levels.get('mine')!.limits.nominalCL, 300, 'ceil(600 × 5 / 10)')
    assert.equal(c.levels.get('mine')!.queueSet.concurrencyLimit, 300, 'no lending, no borrowing: the current limit is the nominal one')
  })

  it('ignores broken levels (an Exempt level not named exempt, a broken queuing config), as the reference does', () => {
    const c = new FlowController({ serverConcurrencyLimit: 100 })
    c.digest({
      schemas: [],
      levels: [{ metadata: { name: 'sneaky' }, spec: { type: 'Exempt', exempt: {} } }, limited('bad-queues', 1, { limitResponse: { type: 'Queue', queuing: { queues: 2, handSize: 3, queueLengthLimit: 1 } } }), limited('ok', 1)],
    })
    assert.deepEqual([...c.levels.keys()].sort(), ['catch-all', 'exempt', 'ok'])
  })

  it('a level removed while it has requests executing drains first (quiescing), then goes', () => {
    const c = new FlowController({ serverConcurrencyLimit: 100 })
    c.digest({ schemas: [], levels: [limited('busy', 10)] })
    const running = c.levels.get('busy')!.queueSet.start(meta('s'), 1000, () => {}) as Outcome
    assert.equal(running.execute, true)
    c.digest({ schemas: [], levels: [] })
    assert.equal(c.levels.get('busy')?.quiescing, true)
    if (running.execute) running.finish()
    c.digest({ schemas: [], levels: [] })
    assert.equal(c.levels.has('busy'), false)
  })

  it('classification falls back to catch-all and counts what each level did', () => {
    const c = new FlowController({ serverConcurrencyLimit: 100 })
    c.digest({ schemas: [], levels: [] })
    const ctx = { receivedAt: 0, auditId: 'a', url: new URL('https://x/api'), info: { isResourceRequest: false, path: '/api', verb: 'get', longRunning: false }, user: { name: 'nobody', groups: [] } }
    assert.equal(c.classify(ctx).level.name, 'catch-all')
    const o = c.level('catch-all').queueSet.start(meta('catch-all'), 0, () => {}) as Outcome
    assert.equal(c.counter('catch-all', 'catch-all').executing, 1)
    if (o.execute) o.finish()
    assert.equal(c.counter('catch-all', 'catch-all').executing, 0)
    assert.equal(c.counter('catch-all', 'catch-all').dispatched, 1)
  })

  it("keeps each FlowSchema's Dangling condition: Found, NotFound, and nothing to do when it is already right", () => {
    const schema = (name: string, level: string, status?: unknown): FlowObject => ({ metadata: { name }, spec: { priorityLevelConfiguration: { name: level } }, ...(status ? { status } : {}) }) as FlowObject
    const found = { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "here" and it exists' }] }
    const updates = danglingUpdates([schema('a', 'here'), schema('b', 'gone'), schema('c', 'here', found)], [limited('here', 1)])
    assert.deepEqual(
      updates.map((u) => [u.name, u.condition.status, u.condition.reason]),
      [
        ['a', 'False', 'Found'],
        ['b', 'True', 'NotFound'],
      ],
    )
    assert.equal(updates[1]!.condition.message, 'This FlowSchema references the PriorityLevelConfiguration object named "gone" but there is no such object')
  })
})
