/**
 * NodeRestriction end to end with the real kubectl 1.35: a server started with
 * `--authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction`, and a kubelet's
 * client certificate (`system:node:n1` in `system:nodes`). The Node authorizer lets a node
 * write any Node; the plugin keeps it to its own, and to the labels a kubelet may set, with the
 * reference's messages.
 */
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer } from '../../support/api-server.js'
import { KUBECTL } from '../../support/kubectl-session.js'
import { type KubectlRun, kubectl, makeCa, makeClientCert, writeKubeconfig } from '../authentication/helpers.js'

describe('admission: NodeRestriction with a kubelet identity and kubectl (end to end)', function () {
  this.timeout(180_000)
  let server: ApiServer
  let dir: string
  const configs: Record<string, string> = {}
  const as = (who: string) => (...args: string[]): Promise<KubectlRun> => kubectl(configs[who]!, dir, ...args)
  const ok = async (who: string, ...args: string[]) => {
    const run = await as(who)(...args)
    assert.equal(run.code, 0, `${who}: kubectl ${args.join(' ')}: ${run.stderr}\n${server.logs.slice(-1500)}`)
    return run.stdout
  }
  const refused = async (who: string, expected: string, ...args: string[]) => {
    const run = await as(who)(...args)
    assert.notEqual(run.code, 0, `${who}: kubectl ${args.join(' ')} succeeded: ${run.stdout}`)
    assert.equal(run.stderr.trim(), expected)
  }

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'noderestriction-e2e-'))
    const ca = await makeCa('kubelet-ca')
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem)
    server = await ApiServer.start({
      waitFor: 'ready',
      args: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', `--client-ca-file=${join(dir, 'client-ca.crt')}`],
    })
    configs.admin = writeKubeconfig(dir, 'kubeconfig-admin', server.port, server.admin())
    configs.node = writeKubeconfig(dir, 'kubeconfig-node', server.port, await makeClientCert(ca, 'system:node:n1', ['system:nodes']))
    const node = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } })
    writeFileSync(join(dir, 'n1.json'), node('n1'))
    writeFileSync(join(dir, 'n2.json'), node('n2'))
    writeFileSync(join(dir, 'pod.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } }))
  })

  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('the node registers its own Node, sets the labels a kubelet may, and is refused the node-restriction.kubernetes.io/ namespace', async () => {
    assert.match(await ok('node', 'create', '-f', join(dir, 'n1.json')), /^node\/n1 created/)
    assert.match(await ok('node', 'label', 'node', 'n1', 'node.kubernetes.io/pool=blue', 'example.com/team=a'), /^node\/n1 labeled/)
    assert.match(await ok('admin', 'get', 'node', 'n1', '-o', 'jsonpath={.metadata.labels}'), /"node.kubernetes.io\/pool":"blue"/)
    await refused('node', 'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/tier', 'label', 'node', 'n1', 'node-restriction.kubernetes.io/tier=gold')
    await refused('node', 'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: other.kubernetes.io/x', 'label', 'node', 'n1', 'other.kubernetes.io/x=y')
    // An administrator is not a node: the same label is its to set.
    assert.match(await ok('admin', 'label', 'node', 'n1', 'node-restriction.kubernetes.io/tier=gold'), /^node\/n1 labeled/)
    // Nor may the node take it off again.
    await refused('node', 'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/tier', 'label', 'node', 'n1', 'node-restriction.kubernetes.io/tier-')
  })

  it('the node may not modify another Node, nor register one, nor its own taints', async () => {
    await ok('admin', 'create', '-f', join(dir, 'n2.json'))
    // The Node authorizer refuses reading n2 (kubectl label and patch read first); replace goes on to the PUT.
    writeFileSync(join(dir, 'n2-team.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { team: 'x' } } }))
    await refused('node', `Error from server (Forbidden): error when replacing "${join(dir, 'n2-team.json')}": nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`, 'replace', '-f', join(dir, 'n2-team.json'))
    assert.doesNotMatch(await ok('admin', 'get', 'node', 'n2', '-o', 'jsonpath={.metadata.labels}'), /team/)
    writeFileSync(join(dir, 'n3.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } }))
    await refused('node', 'Error from server (Forbidden): error when creating "' + join(dir, 'n3.json') + '": nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"', 'create', '-f', join(dir, 'n3.json'))
    await refused('node', 'Error from server (Forbidden): nodes "n1" is forbidden: node "n1" is not allowed to modify taints', 'patch', 'node', 'n1', '--type=merge', '-p', '{"spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]}}')
  })

  it('the node evicts only pods bound to it', async () => {
    writeFileSync(join(dir, 'far.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'far', namespace: 'default' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }] } }))
    await ok('admin', 'create', '-f', join(dir, 'far.json'))
    writeFileSync(join(dir, 'evict-far.json'), JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'far', namespace: 'default' } }))
    await refused('node', 'Error from server (Forbidden): pods "far" is forbidden: node n1 can only evict pods with spec.nodeName set to itself', 'create', '--raw', '/api/v1/namespaces/default/pods/far/eviction', '-f', join(dir, 'evict-far.json'))
    assert.equal(await ok('admin', 'get', 'pod', 'far', '-o', 'jsonpath={.spec.nodeName}'), 'n2')
  })

  it('the node gets tokens only bound to its own pods, for the audiences they use', async () => {
    writeFileSync(join(dir, 'near.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'near', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } }))
    await ok('admin', 'create', '-f', join(dir, 'near.json'))
    const uid = async (pod: string) => ok('admin', 'get', 'pod', pod, '-o', 'jsonpath={.metadata.uid}')
    // The Node authorizer lets n1 ask for the account its pod runs as; the plugin looks at the pod the token is bound to.
    let token: KubectlRun | undefined
    for (let i = 0; i < 50 && !token?.stdout; i++) {
      token = await as('node')('create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=near', `--bound-object-uid=${await uid('near')}`)
      if (!token.stdout) await new Promise((r) => setTimeout(r, 100))
    }
    assert.match(token!.stdout, /^ey/, token!.stderr)
    await refused('node', 'error: failed to create token: serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node', 'create', 'token', 'default', '--bound-object-kind=Pod', '--bound-object-name=far', `--bound-object-uid=${await uid('far')}`)
    await refused(
      'node',
      'error: failed to create token: serviceaccounts "default" is forbidden: audience "vault" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience',
      'create', 'token', 'default', '--audience=vault', '--bound-object-kind=Pod', '--bound-object-name=near', `--bound-object-uid=${await uid('near')}`,
    )
  })

  it('the node creates only mirror pods', async () => {
    await refused(
      'node',
      `Error from server (Forbidden): error when creating "${join(dir, 'pod.json')}": pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`,
      'create',
      '-f',
      join(dir, 'pod.json'),
    )
  })
})

describe('admission: NodeRestriction without the Node authorizer (end to end)', function () {
  this.timeout(180_000)
  let server: ApiServer
  let dir: string
  let admin: string
  let node: string

  before(async function () {
    if (!existsSync(KUBECTL)) {
      if (process.env.CI) throw new Error(`${KUBECTL} is missing`)
      this.skip()
    }
    dir = mkdtempSync(join(tmpdir(), 'noderestriction-rbac-e2e-'))
    const ca = await makeCa('kubelet-ca')
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem)
    server = await ApiServer.start({ waitFor: 'ready', args: ['--authorization-mode=RBAC', '--enable-admission-plugins=NodeRestriction', `--client-ca-file=${join(dir, 'client-ca.crt')}`] })
    admin = writeKubeconfig(dir, 'kubeconfig-admin', server.port, server.admin())
    node = writeKubeconfig(dir, 'kubeconfig-node', server.port, await makeClientCert(ca, 'system:node:n1', ['system:nodes']))
  })

  after(async () => {
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('a node identity bound to cluster-admin by RBAC is still kept to its own Node', async () => {
    const run = async (config: string, ...args: string[]) => kubectl(config, dir, ...args)
    writeFileSync(join(dir, 'n2.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } }))
    assert.equal((await run(admin, 'create', '-f', join(dir, 'n2.json'))).code, 0)
    assert.equal((await run(admin, 'create', 'clusterrolebinding', 'n1-admin', '--clusterrole=cluster-admin', '--user=system:node:n1')).code, 0)
    let label: KubectlRun | undefined
    for (let i = 0; i < 50 && !label?.stderr.includes('is not allowed to modify node'); i++) {
      label = await run(node, 'label', 'node', 'n2', 'team=x')
      if (!label.stderr.includes('is not allowed to modify node')) await new Promise((r) => setTimeout(r, 100))
    }
    assert.equal(label!.stderr.trim(), 'Error from server (Forbidden): nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')
  })
})
