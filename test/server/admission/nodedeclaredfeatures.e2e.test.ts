import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL } from '../../support/kubectl-versions.js'

/**
 * NodeDeclaredFeatureValidator with its gate on and the real kubectl: resizing the CPU of a
 * Guaranteed pod needs GuaranteedQoSPodCPUResize in its Node's status.declaredFeatures, as the
 * Node's status says (written here as a kubelet would).
 */
describe(`admission: NodeDeclaredFeatureValidator end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'adm-ndf-', { waitFor: 'ready', kubectl: MAIN_KUBECTL.tool, args: ['--feature-gates=NodeDeclaredFeatures=true'] })
  })
  after(async () => {
    await session?.close()
  })

  it('a CPU resize of a Guaranteed pod waits for its Node to declare GuaranteedQoSPodCPUResize', async () => {
    await session.ok('create', '-f', session.file('node.json', JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } })))
    await session.ok('patch', 'node', 'n', '--subresource=status', '--type=merge', '-p', '{"status":{"declaredFeatures":["SomethingElse"]}}')
    const resources = { requests: { cpu: '1', memory: '100Mi' }, limits: { cpu: '1', memory: '100Mi' } }
    await session.ok('create', '-f', session.file('pod.json', JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'g' }, spec: { nodeName: 'n', containers: [{ name: 'c', image: 'nginx', resources }] } })))
    assert.equal(await session.ok('get', 'pod', 'g', '-o', 'jsonpath={.status.qosClass}'), 'Guaranteed')
    const resize = ['patch', 'pod', 'g', '--subresource=resize', '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}']
    const refused = await session.run(...resize)
    assert.notEqual(refused.code, 0, refused.stdout)
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): pods "g" is forbidden: pod update requires features GuaranteedQoSPodCPUResize which are not available on node "n"')
    await session.ok('patch', 'node', 'n', '--subresource=status', '--type=merge', '-p', '{"status":{"declaredFeatures":["GuaranteedQoSPodCPUResize"]}}')
    await session.ok(...resize)
    assert.equal(await session.ok('get', 'pod', 'g', '-o', 'jsonpath={.spec.containers[0].resources.requests.cpu}'), '2')
  })
})
