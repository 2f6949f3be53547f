/**
 * Controllers' events as client-go's recorder writes them: one core/v1 Event named after the
 * object, in its namespace, with the source component; the same event again within ten minutes
 * counts on the first (count 2) rather than making a second Event (events_cache.go).
 */
import assert from 'node:assert/strict'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { EventRecorder } from '../../../src/server/controllers/event-recorder.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

describe('controllers: event recorder', function () {
  this.timeout(15_000)
  let t: TestRegistry
  beforeEach(async () => (t = await openTestRegistry('events-')))
  afterEach(async () => t.close())

  const events = async () => (await t.registry.lookup('', 'v1', 'events')!.list({ namespace: 'default' })).items

  it('writes one Event about the object, and counts a repeat within the window on it', async () => {
    const clock = new FakeClock(Date.parse('2026-12-07T10:00:00Z'))
    const recorder = new EventRecorder(t.registry, 'deployment-controller', { clock })
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'u-1' } }
    await recorder.record(deployment, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-1 from 0 to 3')
    clock.advance(5_000)
    await recorder.record(deployment, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-1 from 0 to 3')
    const [event, ...rest] = await events()
    assert.equal(rest.length, 0)
    assert.match(event!.metadata.name ?? '', /^web\.[0-9a-f]+$/)
    assert.deepEqual(event!.involvedObject, { kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'apps/v1' })
    assert.deepEqual(event!.source, { component: 'deployment-controller' })
    assert.equal(event!.count, 2)
    assert.equal(event!.firstTimestamp, '2026-12-07T10:00:00Z')
    assert.equal(event!.lastTimestamp, '2026-12-07T10:00:05Z')
  })

  it('writes a new Event once the window has passed, and one per distinct reason', async () => {
    const clock = new FakeClock(Date.parse('2026-12-07T10:00:00Z'))
    const recorder = new EventRecorder(t.registry, 'default-scheduler', { clock })
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u-2' } }
    await recorder.record(pod, 'Warning', 'FailedScheduling', 'no nodes available to schedule pods')
    clock.advance(11 * 60 * 1000)
    await recorder.record(pod, 'Warning', 'FailedScheduling', 'no nodes available to schedule pods')
    await recorder.record(pod, 'Normal', 'Scheduled', 'Successfully assigned default/p to n1')
    const items = await events()
    assert.equal(items.length, 3)
    assert.deepEqual(items.map((e) => e.count), [1, 1, 1])
  })
})
