/**
 * The ServiceAccount and LimitRanger plugins, on by default, seen with the real kubectl: a pod
 * gets the namespace's default account and the projected token volume in its container; a
 * LimitRange's defaults fill a pod that sets none (the kubernetes.io/limit-ranger annotation
 * saying so), and a limit over its max is refused with the reference's 403 message.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'

describeEachKubectl('admission: ServiceAccount and LimitRanger with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'admission-sa-lr-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const ok = (...args: string[]): Promise<string> => session.ok(...args)

  it('a pod gets the default service account and its token volume, mounted in the container', async () => {
    await ok('create', 'namespace', 'sa')
    await ok('run', 'web', '--image=nginx', '-n', 'sa')
    const pod = JSON.parse(await ok('get', 'pod', 'web', '-n', 'sa', '-o', 'json'))
    assert.equal(pod.spec.serviceAccountName, 'default')
    const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith('kube-api-access-'))
    assert.match(volume.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
    assert.deepEqual(volume.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    })
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }])
    const described = await ok('describe', 'pod', 'web', '-n', 'sa')
    assert.match(described, /\nService Account:\s+default\n/)
    assert.match(described, /TokenExpirationSeconds:\s+3607\n/)
    assert.match(described, /ConfigMapName:\s+kube-root-ca.crt\n/)
  })

  it('a pod of an account that does not exist is refused', async () => {
    const r = await session.run('run', 'ghost', '--image=nginx', '--overrides={"spec":{"serviceAccountName":"ghost"}}')
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr, 'Error from server (Forbidden): pods "ghost" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found\n')
  })

  it('a LimitRange fills in the defaults, and a limit over its max is refused with the reference message', async () => {
    await ok('create', 'namespace', 'lr')
    const limits = session.file(
      'limits.yaml',
      'apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: limits\n  namespace: lr\nspec:\n  limits:\n  - type: Container\n    max:\n      cpu: 500m\n    default:\n      cpu: 200m\n      memory: 128Mi\n    defaultRequest:\n      cpu: 100m\n      memory: 64Mi\n',
    )
    await ok('create', '-f', limits)
    await ok('run', 'nginx', '--image=nginx', '-n', 'lr')
    const pod = JSON.parse(await ok('get', 'pod', 'nginx', '-n', 'lr', '-o', 'json'))
    assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '200m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } })
    assert.equal(pod.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container nginx; cpu, memory limit for container nginx')
    const big = session.file('big.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\n  namespace: lr\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n    resources:\n      limits:\n        cpu: "1"\n')
    const r = await session.run('create', '-f', big)
    assert.notEqual(r.code, 0)
    assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${big}": pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1\n`)
  })
})
