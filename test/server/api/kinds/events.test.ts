import assert from 'node:assert/strict'
import { fromCoreEvent, toCoreEvent } from '../../../../src/server/api/kinds/events.js'
import { type TestRegistry, openTestRegistry } from '../support.js'

describe('api: events.k8s.io/v1 Events, kept as core Events', () => {
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('api-events-')
  })
  afterEach(async () => {
    await t.close()
  })

  it('renames the fields as the reference conversion: regarding, note, reportingController, deprecated*', () => {
    const core = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web' },
      message: 'pulled',
      reason: 'Pulled',
      type: 'Normal',
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
      source: { component: 'kubelet' },
      count: 2,
      firstTimestamp: '2026-01-01T00:00:00Z',
    }
    const v1 = fromCoreEvent(core)
    assert.deepEqual(v1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: core.metadata,
      regarding: core.involvedObject,
      note: 'pulled',
      reason: 'Pulled',
      type: 'Normal',
      reportingController: 'kubelet',
      reportingInstance: 'node-1',
      deprecatedSource: core.source,
      deprecatedCount: 2,
      deprecatedFirstTimestamp: core.firstTimestamp,
    })
    assert.deepEqual(toCoreEvent(v1), core)
  })

  it('each API lists the events the other wrote, in its own form', async () => {
    const core = t.registry.lookup('', 'v1', 'events')!
    const events = t.registry.lookup('events.k8s.io', 'v1', 'events')!
    await core.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'a', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web' }, message: 'from core' })
    await events.create({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'b', namespace: 'default' },
      regarding: { kind: 'Pod', name: 'web' },
      note: 'from events.k8s.io',
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'me',
      reportingInstance: 'me-1',
      action: 'Do',
      reason: 'Done',
      type: 'Normal',
    })
    assert.deepEqual(
      (await events.list()).items.map((e) => [e.metadata.name, e.apiVersion, e.note]),
      [
        ['a', 'events.k8s.io/v1', 'from core'],
        ['b', 'events.k8s.io/v1', 'from events.k8s.io'],
      ],
    )
    const b = await core.get('default', 'b')
    assert.equal(b.apiVersion, 'v1')
    assert.equal(b.message, 'from events.k8s.io')
    assert.deepEqual(b.involvedObject, { kind: 'Pod', name: 'web' })
    // Field selectors of the core Event work on the new form too.
    assert.deepEqual((await events.list({ fields: [{ field: 'involvedObject.name', operator: '=', value: 'web' }] })).items.length, 2)
  })
})
