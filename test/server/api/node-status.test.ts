/**
 * A Node keeps the status it is created with, as the kubelet registers (the reference's
 * nodeStrategy.PrepareForCreate drops only disabled fields), while an update of the Node itself
 * keeps the stored status (PrepareForUpdate: newNode.Status = oldNode.Status); only nodes/status
 * changes it. A Pod, for comparison, drops the status it is created with.
 */
import assert from 'node:assert/strict'
import { type TestRegistry, openTestRegistry } from './support.js'

describe('api: a Node keeps its status on create', function () {
  this.timeout(15_000)
  let t: TestRegistry
  beforeEach(async () => (t = await openTestRegistry('node-status-')))
  afterEach(async () => t.close())

  const status = { capacity: { cpu: '4', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }] }

  it('stores the status sent with the create, and an update of the Node leaves it as stored', async () => {
    const nodes = t.registry.lookup('', 'v1', 'nodes')!
    const created = await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status })
    assert.deepEqual((created.status as typeof status).capacity, status.capacity)
    assert.equal((created.status as typeof status).conditions[0]!.reason, 'KubeletReady')
    const updated = await nodes.update(undefined, 'n1', (current) => ({ ...current, metadata: { ...current.metadata, labels: { a: 'b' } }, status: { capacity: { cpu: '1' } } }))
    assert.deepEqual((updated.status as typeof status).capacity, status.capacity)
    assert.equal(updated.metadata.labels?.a, 'b')
  })

  it('while a Pod drops the status it is created with', async () => {
    const pods = t.registry.lookup('', 'v1', 'pods')!
    const pod = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] }, status: { phase: 'Running' } })
    assert.equal((pod.status as { phase?: string }).phase, 'Pending')
  })
})
