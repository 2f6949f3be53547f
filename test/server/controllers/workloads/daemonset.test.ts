/**
 * The DaemonSet controller over a registry with hand-written nodes: one pod per eligible node
 * (taints, node selector), pinned by node affinity on metadata.name with the DaemonSet
 * tolerations (the reference's pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations and
 * ReplaceDaemonSetPodNodeNameNodeAffinity), a ControllerRevision `<ds>-<hash>` and the
 * `controller-revision-hash` label, status counts, a new node getting its pod, and a rolling
 * update that keeps within maxUnavailable.
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { DaemonSetController } from '../../../../src/server/controllers/daemonset.js'
import { type Cluster, eventually, events, openCluster, podTemplate } from './support.js'

describe('controllers: daemonset-controller', function () {
  this.timeout(30_000)
  let c: Cluster
  const node = (name: string, labels: Record<string, string> = {}, taints: unknown[] = []): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: taints.length ? { taints } : {} })
  const ds = (extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { ...podTemplate({ app: 'agent' }), ...extra } },
  })
  const target = (pod: KubeObject) =>
    (pod.spec as { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: Array<{ matchFields: Array<{ values: string[] }> }> } } } }).affinity.nodeAffinity
      .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]!.matchFields[0]!.values[0]
  /** A node as the simulated nodes and the node lifecycle controller leave it once Ready: the admission plugin's not-ready taint replaced by its own. */
  const addNode = async (n: KubeObject) => {
    await c.store('', 'nodes').create(n)
    await c.store('', 'nodes').update(undefined, n.metadata.name!, (cur) => ({ ...cur, spec: n.spec }), { retryOnConflict: true })
  }
  const placed = async () => (await c.pods()).map(target).sort()
  const status = async () => (await c.store('apps', 'daemonsets').get('default', 'agent')).status as Record<string, number>

  beforeEach(async () => {
    c = await openCluster('ds-', [new DaemonSetController()])
    await addNode(node('n1'))
    await addNode(node('n2', { disk: 'ssd' }))
    await addNode(node('n3', {}, [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }]))
    // The node lifecycle controller's taint on a NotReady node: the DaemonSet tolerates it.
    await addNode(node('n4', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]))
  })
  afterEach(() => c.close())

  it('places one pod per eligible node, pinned to it, with the DaemonSet tolerations and revision', async () => {
    const created = await c.store('apps', 'daemonsets').create(ds())
    await eventually(async () => (await c.pods()).length === 3, 'three pods')
    assert.deepEqual(await placed(), ['n1', 'n2', 'n4'])
    const pod = (await c.pods())[0]!
    assert.equal(pod.metadata.generateName, 'agent-')
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }])
    assert.deepEqual(
      (pod.spec as { tolerations: Array<{ key: string; effect: string }> }).tolerations.map((t) => `${t.key}:${t.effect}`),
      [
        'node.kubernetes.io/not-ready:NoExecute',
        'node.kubernetes.io/unreachable:NoExecute',
        'node.kubernetes.io/disk-pressure:NoSchedule',
        'node.kubernetes.io/memory-pressure:NoSchedule',
        'node.kubernetes.io/pid-pressure:NoSchedule',
        'node.kubernetes.io/unschedulable:NoSchedule',
      ],
    )
    assert.equal((pod.spec as { nodeName?: string }).nodeName, undefined)
    const hash = (pod.metadata.labels as Record<string, string>)['controller-revision-hash']!
    const revision = await c.store('apps', 'controllerrevisions').get('default', `agent-${hash}`)
    assert.equal(revision.revision, 1)
    assert.equal((revision.metadata.labels as Record<string, string>)['controller-revision-hash'], hash)
    assert.equal((revision.data as { spec: { template: { $patch: string } } }).spec.template.$patch, 'replace')
    await eventually(async () => (await status()).desiredNumberScheduled === 3 && (await status()).currentNumberScheduled === 3, 'scheduled counts')
    assert.equal((await status()).numberReady, 0)
    await c.markAllReady()
    await eventually(async () => {
      const s = await status()
      return s.numberReady === 3 && s.numberAvailable === 3 && s.updatedNumberScheduled === 3 && s.numberMisscheduled === 0 && s.observedGeneration === 1
    }, 'ready counts')
    assert.ok((await events(c, 'agent')).some((e) => e.reason === 'SuccessfulCreate' && e.message === `Created pod: ${pod.metadata.name}` && e.component === 'daemonset-controller'))
  })

  it('places a pod on a node added later, and honours the node selector', async () => {
    await c.store('apps', 'daemonsets').create(ds())
    await eventually(async () => (await c.pods()).length === 3, 'three pods')
    await addNode(node('n5'))
    await eventually(async () => (await placed()).includes('n5'), 'a pod on n5')
    await c.store('apps', 'daemonsets').update('default', 'agent', (cur) => {
      const spec = structuredClone(cur.spec) as { template: { spec: Record<string, unknown> } }
      spec.template.spec.nodeSelector = { disk: 'ssd' }
      return { ...cur, spec }
    }, { retryOnConflict: true })
    await eventually(async () => JSON.stringify(await placed()) === JSON.stringify(['n2']), 'only n2')
  })

  it('rolls pods to a new template within maxUnavailable (1)', async () => {
    await c.store('apps', 'daemonsets').create(ds())
    await eventually(async () => (await c.pods()).length === 3, 'three pods')
    await c.markAllReady()
    const firstHash = ((await c.pods())[0]!.metadata.labels as Record<string, string>)['controller-revision-hash']
    await c.store('apps', 'daemonsets').update('default', 'agent', (cur) => {
      const spec = structuredClone(cur.spec) as { template: { spec: { containers: Array<{ image: string }> } } }
      spec.template.spec.containers[0]!.image = 'nginx:1.26'
      return { ...cur, spec }
    }, { retryOnConflict: true })
    const updated = async () => (await c.pods()).filter((p) => (p.metadata.labels as Record<string, string>)['controller-revision-hash'] !== firstHash)
    for (let step = 0; step < 20; step++) {
      await c.settle()
      const running = (await c.pods()).filter((p) => (p.status as { phase?: string }).phase === 'Running').length
      assert.ok(running >= 2, `step ${step}: ${running} ready pods, fewer than 3 - maxUnavailable`)
      if ((await updated()).length === 3 && running === 3) break
      await c.markAllReady()
    }
    assert.equal((await updated()).length, 3)
    await eventually(async () => (await status()).updatedNumberScheduled === 3, 'updatedNumberScheduled 3')
    const revisions = (await c.store('apps', 'controllerrevisions').list({ namespace: 'default' })).items
    assert.deepEqual(revisions.map((r) => r.revision).sort(), [1, 2])
  })

  it('with maxSurge 1 and maxUnavailable 0, starts each new pod beside the old one and keeps every node served', async () => {
    const d = ds()
    ;(d.spec as Record<string, unknown>).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }
    await c.store('apps', 'daemonsets').create(d)
    await eventually(async () => (await c.pods()).length === 3, 'three pods')
    await c.markAllReady()
    const firstHash = ((await c.pods())[0]!.metadata.labels as Record<string, string>)['controller-revision-hash']
    await c.store('apps', 'daemonsets').update('default', 'agent', (cur) => {
      const spec = structuredClone(cur.spec) as { template: { spec: { containers: Array<{ image: string }> } } }
      spec.template.spec.containers[0]!.image = 'nginx:1.26'
      return { ...cur, spec }
    }, { retryOnConflict: true })
    const updated = async () => (await c.pods()).filter((p) => (p.metadata.labels as Record<string, string>)['controller-revision-hash'] !== firstHash)
    let surged = false
    for (let step = 0; step < 30; step++) {
      await c.settle()
      const pods = await c.pods()
      assert.ok(pods.length <= 4, `step ${step}: ${pods.length} pods, more than 3 + maxSurge`)
      surged ||= pods.length === 4
      const servedNodes = new Set(pods.filter((p) => (p.status as { phase?: string }).phase === 'Running').map(target))
      assert.equal(servedNodes.size, 3, `step ${step}: a node without a ready pod`)
      if ((await updated()).length === 3 && pods.length === 3 && servedNodes.size === 3) break
      const pending = pods.find((p) => (p.status as { phase?: string }).phase !== 'Running')
      if (pending) await c.markReady(pending)
    }
    assert.ok(surged, 'never surged')
    assert.equal((await updated()).length, 3)
    assert.equal((await c.pods()).length, 3)
  })
})
