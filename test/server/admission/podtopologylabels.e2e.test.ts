import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL } from '../../support/kubectl-versions.js'

/**
 * PodTopologyLabels (on by default) with the real kubectl: a pod bound to a Node through a
 * Binding, and a pod created already on a Node, carry the Node's topology.k8s.io zone and
 * region labels, and only those; a label the pod set itself is kept.
 */
describe(`admission: PodTopologyLabels end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'adm-topology-', { waitFor: 'ready', kubectl: MAIN_KUBECTL.tool })
    const node = session.file(
      'node.json',
      JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'zoned', labels: { 'topology.k8s.io/zone': 'z1', 'topology.k8s.io/region': 'r1', 'topology.k8s.io/rack': 'k7', 'kubernetes.io/hostname': 'zoned' } } }),
    )
    await session.ok('create', '-f', node)
  })
  after(async () => {
    await session?.close()
  })

  const labels = async (pod: string) => JSON.parse(await session.ok('get', 'pod', pod, '-o', 'jsonpath={.metadata.labels}')) as Record<string, string>

  it('a Binding to the Node through pods/<name>/binding gives the pod its zone and region; the bindings collection does not', async () => {
    const pod = (name: string) => session.file(`${name}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }))
    const binding = (name: string) => session.file(`${name}-binding.json`, JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: 'zoned' } }))
    // The scheduler's way: the pod's binding subresource, which the plugin admits.
    await session.ok('create', '-f', pod('bound'))
    await session.ok('create', '--raw', '/api/v1/namespaces/default/pods/bound/binding', '-f', binding('bound'))
    assert.equal(await session.ok('get', 'pod', 'bound', '-o', 'jsonpath={.spec.nodeName}'), 'zoned')
    assert.deepEqual(await labels('bound'), { app: 'web', 'topology.k8s.io/region': 'r1', 'topology.k8s.io/zone': 'z1' })
    // The legacy `bindings` resource is another resource than pods: the plugin leaves it alone, as the reference's shouldAdmit.
    await session.ok('create', '-f', pod('legacy'))
    await session.ok('create', '-f', binding('legacy'))
    assert.equal(await session.ok('get', 'pod', 'legacy', '-o', 'jsonpath={.spec.nodeName}'), 'zoned')
    assert.deepEqual(await labels('legacy'), { app: 'web' })
  })

  it('a pod created on the Node gets them too, keeping a zone it set itself', async () => {
    const pod = session.file(
      'direct.json',
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'direct', labels: { 'topology.k8s.io/zone': 'mine' } }, spec: { nodeName: 'zoned', containers: [{ name: 'c', image: 'nginx' }] } }),
    )
    await session.ok('create', '-f', pod)
    assert.deepEqual(await labels('direct'), { 'topology.k8s.io/region': 'r1', 'topology.k8s.io/zone': 'mine' })
  })
})
