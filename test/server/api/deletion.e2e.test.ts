import assert from 'node:assert/strict'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL, deletedLine, describeEachKubectl } from '../../support/kubectl-versions.js'

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describeEachKubectl('api: deletion with the real kubectl (finalizers, cascade, namespaces, deletecollection)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-deletion-', { waitFor: 'ready', args: ['--delete-collection-workers=3'], kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const file = (name: string, text: string) => session.file(name, text)
  const gone = async (...args: string[]) => (await kubectl('get', ...args)).stderr.includes('(NotFound)')


  it('finalizers: delete marks the object, patch removing the last finalizer deletes it', async () => {
    await ok('create', '-f', file('fin.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fin\n  finalizers: [example.com/keep]\ndata:\n  a: "1"\n'))
    assert.equal(await ok('delete', 'cm', 'fin', '--wait=false'), deletedLine(client, 'configmap "fin"', 'default'))
    const obj = JSON.parse(await ok('get', 'cm', 'fin', '-o', 'json'))
    assert.match(obj.metadata.deletionTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    assert.equal(obj.metadata.deletionGracePeriodSeconds, 0)
    // Deleting again answers the object again.
    assert.equal(await ok('delete', 'cm', 'fin', '--wait=false'), deletedLine(client, 'configmap "fin"', 'default'))
    const added = await kubectl('patch', 'cm', 'fin', '--type=json', '-p', '[{"op":"add","path":"/metadata/finalizers/-","value":"b"}]')
    assert.notEqual(added.code, 0)
    assert.equal(
      added.stderr,
      'The ConfigMap "fin" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b"}\n',
    )
    assert.equal(await ok('patch', 'cm', 'fin', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'), 'configmap/fin patched\n')
    const get = await kubectl('get', 'cm', 'fin')
    assert.equal(get.stderr, 'Error from server (NotFound): configmaps "fin" not found\n')
  })

  it('pods on a node are deleted gracefully; kubectl waits until the grace period is over', async () => {
    await ok('create', '-f', file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeName: node-1\n  containers:\n  - name: c\n    image: nginx\n'))
    assert.equal(await ok('delete', 'pod', 'p', '--wait=false', '--grace-period=2'), deletedLine(client, 'pod "p"', 'default'))
    const pod = JSON.parse(await ok('get', 'pod', 'p', '-o', 'json'))
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 2)
    assert.equal(await ok('delete', 'pod', 'p', '--ignore-not-found'), deletedLine(client, 'pod "p"', 'default'))
    assert.ok(await gone('pod', 'p'))
  })

  async function ownerAndDependents(name: string): Promise<string> {
    await ok('create', 'deployment', name, '--image=nginx')
    const uid = (await ok('get', 'deploy', name, '-o', 'jsonpath={.metadata.uid}')).trim()
    const dependent = (dep: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${dep}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: ${name}\n    uid: ${uid}\n    blockOwnerDeletion: true\n    controller: true\ndata:\n  a: "1"\n`
    await ok('create', '-f', file(`${name}-dep.yaml`, dependent(`${name}-dep`)))
    return uid
  }

  it('--cascade=foreground: the dependents go first, then the owner', async () => {
    await ownerAndDependents('fg')
    assert.equal(await ok('delete', 'deploy', 'fg', '--cascade=foreground'), deletedLine(client, 'deployment.apps "fg"', 'default'))
    assert.ok(await gone('deploy', 'fg'))
    assert.ok(await gone('cm', 'fg-dep'))
  })

  it('--cascade=orphan: the owner goes, the dependents stay without the reference', async () => {
    await ownerAndDependents('orph')
    assert.equal(await ok('delete', 'deploy', 'orph', '--cascade=orphan'), deletedLine(client, 'deployment.apps "orph"', 'default'))
    assert.ok(await gone('deploy', 'orph'))
    const dep = JSON.parse(await ok('get', 'cm', 'orph-dep', '-o', 'json'))
    assert.equal(dep.metadata.ownerReferences, undefined)
    await ok('delete', 'cm', 'orph-dep')
  })

  it('--cascade=background (the default): the owner goes at once, the collector deletes the dependents', async () => {
    await ownerAndDependents('bg')
    assert.equal(await ok('delete', 'deploy', 'bg', '--cascade=background'), deletedLine(client, 'deployment.apps "bg"', 'default'))
    assert.ok(await gone('deploy', 'bg'))
    await until(() => gone('cm', 'bg-dep'), 'the dependent to be collected')
  })

  it('a namespace goes Terminating, refuses new content, and is removed with its contents', async () => {
    assert.equal(await ok('create', 'namespace', 'team'), 'namespace/team created\n')
    await ok('create', 'configmap', 'plain', '-n', 'team', '--from-literal=a=b')
    await ok('create', '-f', file('held.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  namespace: team\n  finalizers: [example.com/keep]\n'))
    assert.equal(await ok('delete', 'ns', 'team', '--wait=false'), 'namespace "team" deleted\n')
    assert.match(await ok('get', 'ns', 'team'), /^NAME\s+STATUS\s+AGE\nteam\s+Terminating\s+\d+s\n$/)
    const ns = JSON.parse(await ok('get', 'ns', 'team', '-o', 'json'))
    assert.ok(ns.metadata.deletionTimestamp)
    const refused = await kubectl('create', 'configmap', 'late', '-n', 'team', '--from-literal=a=b')
    assert.equal(refused.stderr, 'error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated\n')
    await until(() => gone('cm', 'plain', '-n', 'team'), 'the contents to go')
    assert.match(await ok('get', 'ns', 'team', '-o', 'jsonpath={.spec.finalizers}'), /kubernetes/)
    await ok('patch', 'cm', 'held', '-n', 'team', '--type=merge', '-p', '{"metadata":{"finalizers":null}}')
    await until(() => gone('ns', 'team'), 'the namespace to go once its last content is gone')

    await ok('create', 'namespace', 'short')
    await ok('create', 'configmap', 'c', '-n', 'short', '--from-literal=a=b')
    assert.equal(await ok('delete', 'ns', 'short'), 'namespace "short" deleted\n')
    assert.ok(await gone('ns', 'short'))
  })

  it('the namespace finalize subresource: a namespace waits for its spec.finalizers', async () => {
    await ok('create', 'namespace', 'fz')
    const ns = JSON.parse(await ok('get', 'ns', 'fz', '-o', 'json'))
    ns.spec.finalizers = ['kubernetes', 'example.com/hold']
    const written = JSON.parse(await ok('replace', '--raw', '/api/v1/namespaces/fz/finalize', '-f', file('fz.json', JSON.stringify(ns))))
    assert.deepEqual(written.spec.finalizers, ['kubernetes', 'example.com/hold'])
    assert.equal(await ok('delete', 'ns', 'fz', '--wait=false'), 'namespace "fz" deleted\n')
    await until(async () => (await ok('get', 'ns', 'fz', '-o', 'jsonpath={.spec.finalizers}')) === '["example.com/hold"]', 'the namespace controller to finish')
    const current = JSON.parse(await ok('get', 'ns', 'fz', '-o', 'json'))
    assert.equal(current.status.phase, 'Terminating')
    current.spec.finalizers = []
    await ok('replace', '--raw', '/api/v1/namespaces/fz/finalize', '-f', file('fz2.json', JSON.stringify(current)))
    assert.ok(await gone('ns', 'fz'))
  })

  it('raw HTTP: 202 only when orphanDependents=false; a pending graceful deletion answers a Status', async () => {
    const server = session.server
    await ok('create', '-f', file('raw.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: raw\n  finalizers: [example.com/keep]\n'))
    const del = (path: string, body: string) => server.get(path, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }, 'DELETE', body)
    const accepted = await del('/api/v1/namespaces/default/configmaps/raw', '{"orphanDependents":false}')
    assert.equal(accepted.status, 202)
    const marked = JSON.parse(accepted.body)
    assert.equal(marked.kind, 'ConfigMap')
    assert.ok(marked.metadata.deletionTimestamp)
    const again = await del('/api/v1/namespaces/default/configmaps/raw', '{}')
    assert.equal(again.status, 200)
    assert.equal(JSON.parse(again.body).metadata.deletionTimestamp, marked.metadata.deletionTimestamp)
    await ok('patch', 'cm', 'raw', '--type=merge', '-p', '{"metadata":{"finalizers":null}}')

    await ok('create', '-f', file('slow.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\nspec:\n  nodeName: node-1\n  terminationGracePeriodSeconds: 60\n  containers:\n  - name: c\n    image: nginx\n'))
    const first = await del('/api/v1/namespaces/default/pods/slow', '{}')
    assert.equal(first.status, 200)
    assert.equal(JSON.parse(first.body).metadata.deletionGracePeriodSeconds, 60)
    assert.match(await ok('get', 'pod', 'slow'), /^slow\s+0\/1\s+Terminating\s+0\s+\d+s$/m)
    const pending = JSON.parse((await del('/api/v1/namespaces/default/pods/slow', '{}')).body)
    assert.equal(pending.kind, 'Status')
    assert.equal(pending.status, 'Success')
    assert.equal(pending.details.kind, 'pods')
    assert.equal(await ok('delete', 'pod', 'slow', '--grace-period=0', '--force'), deletedLine(client, 'pod "slow"', 'default', 'force deleted'))
    assert.ok(await gone('pod', 'slow'))
  })

  it('deletecollection deletes every selected object (with parallel workers)', async () => {
    for (let i = 0; i < 7; i++) await ok('create', 'configmap', `batch-${i}`, '--from-literal=a=b')
    await ok('label', 'cm', ...Array.from({ length: 7 }, (_, i) => `batch-${i}`), 'batch=1')
    await ok('create', 'configmap', 'other', '--from-literal=a=b')
    const list = JSON.parse(await ok('delete', '--raw', '/api/v1/namespaces/default/configmaps?labelSelector=batch%3D1'))
    assert.equal(list.kind, 'ConfigMapList')
    assert.equal(list.items.length, 7)
    const left = await kubectl('get', 'cm', '-l', 'batch=1')
    assert.equal(left.stderr, 'No resources found in default namespace.\n')
    assert.match(await ok('get', 'cm', 'other'), /^other\s+1\s+\d+s$/m)
  })
})

describe('api: deletion with --enable-garbage-collector=false (end to end)', function () {
  this.timeout(60_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-deletion-nogc-', { waitFor: 'ready', args: ['--enable-garbage-collector=false'] })
  })
  after(async () => {
    await session?.close()
  })

  it('the propagation policy adds no finalizer and dependents stay with their references', async () => {
    await session.ok('create', 'deployment', 'web', '--image=nginx')
    const uid = (await session.ok('get', 'deploy', 'web', '-o', 'jsonpath={.metadata.uid}')).trim()
    await session.ok(
      'create',
      '-f',
      session.file('dep.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dep\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: ${uid}\n`),
    )
    assert.equal(await session.ok('delete', 'deploy', 'web', '--cascade=orphan'), deletedLine(MAIN_KUBECTL, 'deployment.apps "web"', 'default'))
    assert.equal((await session.run('get', 'deploy', 'web')).stderr, 'Error from server (NotFound): deployments.apps "web" not found\n')
    await new Promise((resolve) => setTimeout(resolve, 500))
    const dep = JSON.parse(await session.ok('get', 'cm', 'dep', '-o', 'json'))
    assert.equal(dep.metadata.ownerReferences[0].uid, uid)
  })
})
