/**
 * The kubelet's events for the pods on the simulated nodes, with the 1.35 kubelet's reasons and
 * texts (pkg/kubelet/images/image_manager.go: `Pulling image %q`, `Successfully pulled image %q
 * in %v (%v including waiting). Image size: %v bytes.`, `Container image %q already present on
 * machine and can be accessed by the pod`; pkg/kubelet/kuberuntime/kuberuntime_container.go:
 * `Container created`, `Container started`, since kubernetes/kubernetes#134043), each on the
 * container's field path, from `kubelet` with the node as host: init containers first, an image
 * the node holds not pulled again under IfNotPresent but pulled under Always, and nothing
 * recorded twice for the same start, nor again after the nodes restart. Also Go's
 * Duration.String() for the pull time.
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import type { ClusterConfig } from '../../../src/server/config.js'
import { testClusterConfig } from '../../support/cluster-config.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { SimulatedNodes } from '../../../src/server/simnodes/index.js'
import { goDuration } from '../../../src/server/simnodes/kubelet-events.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const CLUSTER: ClusterConfig = testClusterConfig()

interface Event {
  reason: string
  message: string
  type: string
  source: { component: string; host?: string }
  involvedObject: { kind: string; name: string; fieldPath?: string }
  reportingComponent: string
  reportingInstance: string
  metadata: { name: string; resourceVersion: string }
}

const phaseOf = (pod: KubeObject) => (pod.status as { phase?: string } | undefined)?.phase
const PULLED = /^Successfully pulled image "([^"]+)" in (\d+ms|0s|[\d.]+s) \(\2 including waiting\)\. Image size: \d+ bytes\.$/

describe('simulated nodes: the kubelet events of the containers they start', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const store = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!
  const pod = (name: string, nodeName: string, spec: Record<string, unknown>, metadata: Partial<KubeObject['metadata']> = {}) =>
    store('pods').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...metadata }, spec: { nodeName, ...spec } })
  /** The pod's kubelet events in the order they were written (their resource versions grow). */
  const eventsOf = async (name: string) =>
    ((await store('events').list({ namespace: 'default' })).items as unknown as Event[])
      .filter((e) => e.involvedObject.name === name && e.source.component === 'kubelet')
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
  const running = (name: string) => eventually(async () => phaseOf(await store('pods').get('default', name)) === 'Running', `${name} Running`)

  beforeEach(async () => {
    t = await openTestRegistry('kubelet-events-', ['default', 'kube-node-lease'])
    manager = new ControllerManager([new SimulatedNodes({ cluster: CLUSTER, version: 'v1.35.0', log: () => {} })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager?.stop()
    await t.close()
  })

  it('records Pulling, Pulled, Created and Started for each container, init containers first, on its field path', async () => {
    await pod('web', 'sim-1', { initContainers: [{ name: 'setup', image: 'busybox:1.36' }], containers: [{ name: 'nginx', image: 'nginx' }, { name: 'sidecar', image: 'registry.k8s.io/pause:3.10' }] })
    await running('web')
    await eventually(async () => (await eventsOf('web')).length === 12, 'twelve kubelet events')
    const events = await eventsOf('web')
    for (const e of events) {
      assert.deepEqual([e.type, e.source, e.reportingComponent, e.reportingInstance, e.involvedObject.kind], ['Normal', { component: 'kubelet', host: 'sim-1' }, 'kubelet', 'sim-1', 'Pod'])
    }
    const lines = events.map((e) => [e.involvedObject.fieldPath, e.reason, e.message.replace(PULLED, 'Successfully pulled image "$1" in … (… including waiting). Image size: … bytes.')])
    assert.deepEqual(lines, [
      ['spec.initContainers{setup}', 'Pulling', 'Pulling image "busybox:1.36"'],
      ['spec.initContainers{setup}', 'Pulled', 'Successfully pulled image "busybox:1.36" in … (… including waiting). Image size: … bytes.'],
      ['spec.initContainers{setup}', 'Created', 'Container created'],
      ['spec.initContainers{setup}', 'Started', 'Container started'],
      ['spec.containers{nginx}', 'Pulling', 'Pulling image "nginx"'],
      ['spec.containers{nginx}', 'Pulled', 'Successfully pulled image "nginx" in … (… including waiting). Image size: … bytes.'],
      ['spec.containers{nginx}', 'Created', 'Container created'],
      ['spec.containers{nginx}', 'Started', 'Container started'],
      ['spec.containers{sidecar}', 'Pulling', 'Pulling image "registry.k8s.io/pause:3.10"'],
      ['spec.containers{sidecar}', 'Pulled', 'Successfully pulled image "registry.k8s.io/pause:3.10" in … (… including waiting). Image size: … bytes.'],
      ['spec.containers{sidecar}', 'Created', 'Container created'],
      ['spec.containers{sidecar}', 'Started', 'Container started'],
    ])
  })

  it('does not pull again an image the node holds under IfNotPresent, but does under Always, and on another node', async () => {
    await pod('first', 'sim-0', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })
    await eventually(async () => (await eventsOf('first')).length === 4, "first's four events")
    await pod('second', 'sim-0', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })
    await pod('always', 'sim-0', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'Always' }] })
    await pod('elsewhere', 'sim-1', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })
    await eventually(async () => (await eventsOf('second')).length === 3 && (await eventsOf('always')).length === 4 && (await eventsOf('elsewhere')).length === 4, 'the others’ events')
    assert.deepEqual((await eventsOf('second')).map((e) => [e.reason, e.message]), [
      ['Pulled', 'Container image "nginx:1.27" already present on machine and can be accessed by the pod'],
      ['Created', 'Container created'],
      ['Started', 'Container started'],
    ])
    assert.deepEqual((await eventsOf('always')).map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started'])
    assert.match((await eventsOf('always'))[1]!.message, PULLED)
    assert.deepEqual((await eventsOf('elsewhere')).map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started'])
  })

  it("records a container's start once, though its pod's status is written again (a Job's pod Succeeded)", async () => {
    await pod('job-x', 'sim-0', { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36' }] }, { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'x', uid: '00000000-0000-0000-0000-000000000001' }] })
    await eventually(async () => phaseOf(await store('pods').get('default', 'job-x')) === 'Succeeded', 'the Job pod Succeeded')
    await new Promise((r) => setTimeout(r, 200))
    assert.deepEqual((await eventsOf('job-x')).map((e) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started'])
  })

  it('records nothing again for the pods already running when the nodes start again, whose images they hold', async () => {
    await pod('old', 'sim-0', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })
    await eventually(async () => (await eventsOf('old')).length === 4, "old's four events")
    // A restart of the nodes (or another process taking them over) on the same store.
    await manager.stop()
    manager = new ControllerManager([new SimulatedNodes({ cluster: CLUSTER, version: 'v1.35.0', log: () => {} })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    await eventually(async () => (await store('nodes').list()).items.length === 2, 'the nodes registered again')
    await new Promise((r) => setTimeout(r, 200))
    await store('pods').update('default', 'old', (cur: KubeObject) => ({ ...cur, metadata: { ...cur.metadata, labels: { touched: 'yes' } } }))
    await pod('new', 'sim-0', { containers: [{ name: 'app', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })
    await eventually(async () => (await eventsOf('new')).length === 3, "new's three events")
    assert.equal((await eventsOf('new'))[0]!.message, 'Container image "nginx:1.27" already present on machine and can be accessed by the pod')
    assert.equal((await eventsOf('old')).length, 4)
  })

  it("formats the pull time as Go's time.Duration.String()", () => {
    assert.deepEqual([0, 1, 393, 1000, 1500, 15_981, 61_000, 3_600_001].map(goDuration), ['0s', '1ms', '393ms', '1s', '1.5s', '15.981s', '1m1s', '1h0m0.001s'])
  })
})
