/**
 * The bootstrap signer and the token cleaner (off by default in kube-controller-manager) over a
 * registry. The detached JWS is checked against the reference's own vectors
 * (k8s.io/cluster-bootstrap/token/jws/jws_test.go).
 */
import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { computeDetachedSignature } from '../../../src/server/controllers/bootstrap/jws.js'
import { BootstrapSignerController } from '../../../src/server/controllers/bootstrap-signer.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { TokenCleanerController } from '../../../src/server/controllers/token-cleaner.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const CONTENT = 'Hello from the other side. I must have called a thousand times.'

const b64 = (s: string) => Buffer.from(s).toString('base64')
const tokenSecret = (id: string, secret: string, extra: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
  type: 'bootstrap.kubernetes.io/token',
  data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, b64(v)])),
})

describe('controllers: bootstrap-signer-controller and token-cleaner-controller', function () {
  this.timeout(15_000)

  it('computes the reference detached signatures', () => {
    assert.equal(computeDetachedSignature(CONTENT, 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8')
    assert.equal(computeDetachedSignature('', 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk')
    assert.equal(
      computeDetachedSignature(CONTENT, 'joshua', 'my voice is my passcode. my voice is my passcode'),
      'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..SFoKn0-YxqnvpSExt4LuCZ_7pvIBdX3SoUO_NsTpkdg',
    )
  })

  describe('over a registry', () => {
    let t: TestRegistry
    let manager: ControllerManager | undefined
    const start = Date.now()
    const clock = new FakeClock(start)
    const secrets = () => t.registry.lookup('', 'v1', 'secrets')!
    const clusterInfo = async () => ((await t.registry.lookup('', 'v1', 'configmaps')!.get('kube-public', 'cluster-info')).data ?? {}) as Record<string, string>

    beforeEach(async () => {
      t = await openTestRegistry('bootstrap-', ['default', 'kube-system', 'kube-public'])
    })
    afterEach(async () => {
      await manager?.stop()
      await t.close()
    })

    it('signs cluster-info with each signing token, and drops the signature of a token gone', async () => {
      await t.registry.lookup('', 'v1', 'configmaps')!.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: CONTENT } })
      await secrets().create(tokenSecret('abcdef', '0123456789abcdef', { 'usage-bootstrap-signing': 'true' }))
      await secrets().create(tokenSecret('nosign', '0123456789abcdef'))
      manager = new ControllerManager([new BootstrapSignerController({ clock })])
      await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
      await eventually(async () => (await clusterInfo())['jws-kubeconfig-abcdef'] !== undefined, 'signature')
      const data = await clusterInfo()
      assert.equal(data['jws-kubeconfig-abcdef'], computeDetachedSignature(CONTENT, 'abcdef', '0123456789abcdef'))
      assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig'])
      await secrets().delete('kube-system', 'bootstrap-token-abcdef')
      await eventually(async () => (await clusterInfo())['jws-kubeconfig-abcdef'] === undefined, 'signature removed')
    })

    it('deletes a token once its expiration passes on the cluster clock', async () => {
      await secrets().create(tokenSecret('abcdef', '0123456789abcdef', { expiration: new Date(start + 3600_000).toISOString() }))
      await secrets().create(tokenSecret('forevr', '0123456789abcdef'))
      manager = new ControllerManager([new TokenCleanerController({ clock, recheckMs: 20 })])
      await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
      const names = async () => (await secrets().list({ namespace: 'kube-system' })).items.map((s) => s.metadata.name).filter((n) => n?.startsWith('bootstrap-token-')).sort()
      await new Promise((r) => setTimeout(r, 100))
      assert.deepEqual(await names(), ['bootstrap-token-abcdef', 'bootstrap-token-forevr'])
      clock.advance(3601_000)
      await eventually(async () => (await names()).join() === 'bootstrap-token-forevr', 'expired token deleted')
    })
  })
})
