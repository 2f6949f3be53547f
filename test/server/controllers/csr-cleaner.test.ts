/**
 * The CSR cleaner (the reference's cleaner.go and its table of cases): issued and approved more
 * than an hour ago, denied or failed more than an hour ago, pending more than a day, or with an
 * expired certificate, a request is deleted at the next hourly sweep of the cluster's clock.
 */
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { FakeClock } from '../../../src/server/controllers/clock.js'
import { CsrCleanerController, expiredReason } from '../../../src/server/controllers/csr-cleaner.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { loadX509 } from '../../../src/server/tls/generate.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const NOW = Date.parse('2030-01-01T12:00:00Z')
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString()
const csr = (created: string, conditions: Array<{ type: string; lastUpdateTime: string }>, certificate?: string): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'x', creationTimestamp: created },
  spec: {},
  status: { conditions: conditions.map((c) => ({ ...c, status: 'True' })), ...(certificate ? { certificate } : {}) },
})

describe('controllers: certificatesigningrequest-cleaner-controller', function () {
  this.timeout(15_000)

  it('the reference cases: what goes and what stays', () => {
    assert.equal(expiredReason(csr(ago(90), [{ type: 'Approved', lastUpdateTime: ago(61) }], 'Y2VydA=='), NOW), 'issued')
    assert.equal(expiredReason(csr(ago(90), [{ type: 'Approved', lastUpdateTime: ago(59) }], 'Y2VydA=='), NOW), undefined)
    // Approved but not issued yet: kept (the signer may still come).
    assert.equal(expiredReason(csr(ago(90), [{ type: 'Approved', lastUpdateTime: ago(61) }]), NOW), undefined)
    assert.equal(expiredReason(csr(ago(90), [{ type: 'Denied', lastUpdateTime: ago(61) }]), NOW), 'denied')
    assert.equal(expiredReason(csr(ago(90), [{ type: 'Failed', lastUpdateTime: ago(61) }]), NOW), 'failed')
    assert.equal(expiredReason(csr(ago(24 * 60 + 1), []), NOW), 'pending')
    assert.equal(expiredReason(csr(ago(24 * 60 - 1), []), NOW), undefined)
  })

  describe('over a registry', () => {
    let t: TestRegistry
    let manager: ControllerManager | undefined
    // The registry stamps creation with the real time: the cluster's clock starts there.
    const start = Date.now()
    const clock = new FakeClock(start)
    const names = async () => (await t.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')!.list()).items.map((o) => o.metadata.name).sort()

    beforeEach(async () => {
      t = await openTestRegistry('csr-cleaner-', ['default'])
    })
    afterEach(async () => {
      await manager?.stop()
      await t.close()
    })

    it('deletes a denied request at the next sweep after its hour, and keeps a fresh one', async () => {
      const csrs = t.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')!
      const x509 = await loadX509()
      const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
      const keys = (await crypto.webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as crypto.webcrypto.CryptoKeyPair
      const request = Buffer.from((await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=u', keys, signingAlgorithm: alg }, crypto.webcrypto)).toString('pem')).toString('base64')
      for (const name of ['old', 'fresh']) {
        await csrs.create({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'example.com/x', usages: ['client auth'], username: 'u' } })
      }
      await csrs.update(undefined, 'old', (c) => ({ ...c, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'R', message: 'm', lastUpdateTime: new Date(start - 2 * 3600_000).toISOString().replace(/\.\d+Z/, 'Z') }] } }), { subresource: 'approval' })
      manager = new ControllerManager([new CsrCleanerController({ clock, recheckMs: 20 })])
      await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
      await eventually(async () => (await names()).join() === 'fresh', 'old deleted')
      // A day and a minute on, at the next hourly sweep, the pending one goes too.
      clock.advance(25 * 3600_000)
      await eventually(async () => (await names()).length === 0, 'pending deleted after a day')
    })
  })
})
