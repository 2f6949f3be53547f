/**
 * The CSR signing and approving controllers over a registry: an approved request of each
 * built-in signer gets a certificate signed by the CA for the requested subject (checked with
 * node:crypto), a request its signer refuses gets Failed/SignerValidationFailure with the
 * reference's message, and a kubelet's client request is approved after the authorizer allows
 * `certificatesigningrequests/selfnodeclient` or `nodeclient` (the reference's
 * sarapprove.go reasons and messages).
 */
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import type { Attributes } from '../../../src/server/authorization/authorizer.js'
import { CsrApprovingController } from '../../../src/server/controllers/csr-approving.js'
import { CsrSigningController, signingDuration } from '../../../src/server/controllers/csr-signing.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { createCaCertificate, generateKey, loadX509, privateKeyPem } from '../../../src/server/tls/generate.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

/** A PKCS#10 request for `subject` (a DN string), with DNS names, as base64 of its PEM. */
async function request(subject: string, dns: string[] = []): Promise<string> {
  const x509 = await loadX509()
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = (await crypto.webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as crypto.webcrypto.CryptoKeyPair
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name: subject, keys, signingAlgorithm: alg, extensions: dns.length > 0 ? [new x509.SubjectAlternativeNameExtension(dns.map((value) => ({ type: 'dns' as const, value })))] : [] },
    crypto.webcrypto,
  )
  return Buffer.from(csr.toString('pem')).toString('base64')
}

describe('controllers: certificatesigningrequest signing and approving', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  let dir: string
  let caPem: string
  const asked: Attributes[] = []
  let allowed: (a: Attributes) => boolean = () => false
  const csrs = (): GenericStore => t.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')!
  const get = (name: string) => csrs().get(undefined, name)
  const conditions = (o: KubeObject) => ((o.status as { conditions?: Array<Record<string, string>> } | undefined)?.conditions ?? [])
  const certificateOf = (o: KubeObject) => (o.status as { certificate?: string } | undefined)?.certificate

  const create = async (name: string, signerName: string, req: string, usages: string[], user?: { username: string; groups: string[] }) =>
    csrs().create(
      // The requester as the API's create handler writes it (fromRequester).
      { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: req, signerName, usages, ...(user ?? {}) } },
    )
  const approve = (name: string) =>
    csrs().update(undefined, name, (c) => ({ ...c, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' }] } }), { subresource: 'approval' })

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'csr-ca-'))
    const key = await generateKey('rsa')
    caPem = await createCaCertificate({ key, commonName: 'test-ca', notBefore: new Date(Date.now() - 3600_000), notAfter: new Date(Date.now() + 30 * 86400_000) })
    writeFileSync(join(dir, 'ca.crt'), caPem)
    writeFileSync(join(dir, 'ca.key'), privateKeyPem(key.privateKey))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  beforeEach(async () => {
    asked.length = 0
    allowed = () => false
    t = await openTestRegistry('csr-', ['default'])
    const authorizer = { authorize: (a: Attributes) => (asked.push(a), { decision: allowed(a) ? ('allow' as const) : ('noOpinion' as const) }) }
    manager = new ControllerManager([new CsrSigningController({ signingFiles: { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') } }), new CsrApprovingController({ authorizer })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('signs an approved kube-apiserver-client request with the CA, for the requested subject and usages', async () => {
    await create('alice', 'kubernetes.io/kube-apiserver-client', await request('O=devs, CN=alice'), ['client auth', 'digital signature'])
    await new Promise((r) => setTimeout(r, 200))
    assert.equal(certificateOf(await get('alice')), undefined, 'not signed before approval')
    await approve('alice')
    await eventually(async () => certificateOf(await get('alice')) !== undefined, 'certificate')
    const cert = new crypto.X509Certificate(Buffer.from(certificateOf(await get('alice'))!, 'base64'))
    const ca = new crypto.X509Certificate(caPem)
    assert.ok(cert.checkIssued(ca))
    assert.ok(cert.verify(ca.publicKey))
    assert.match(cert.subject, /CN=alice/)
    assert.match(cert.subject, /O=devs/)
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'])
    assert.equal(cert.ca, false)
    // --cluster-signing-duration (a year), bounded by the CA's own expiry (30 days here).
    assert.ok(Date.parse(cert.validTo) <= Date.parse(ca.validTo))
  })

  it('signs a kubelet-serving request with its DNS names; refuses one without system:nodes', async () => {
    await create('serving', 'kubernetes.io/kubelet-serving', await request('O=system:nodes, CN=system:node:node-0', ['node-0']), ['digital signature', 'server auth'])
    await approve('serving')
    await eventually(async () => certificateOf(await get('serving')) !== undefined, 'certificate')
    const cert = new crypto.X509Certificate(Buffer.from(certificateOf(await get('serving'))!, 'base64'))
    assert.equal(cert.subjectAltName, 'DNS:node-0')

    await create('bad', 'kubernetes.io/kubelet-serving', await request('CN=system:node:node-0', ['node-0']), ['digital signature', 'server auth'])
    await approve('bad')
    await eventually(async () => conditions(await get('bad')).some((c) => c.type === 'Failed'), 'Failed condition')
    const failed = conditions(await get('bad')).find((c) => c.type === 'Failed')!
    assert.equal(failed.reason, 'SignerValidationFailure')
    assert.equal(failed.message, 'subject organization is not system:nodes')
    assert.equal(certificateOf(await get('bad')), undefined)
  })

  it('refuses a kube-apiserver-client request without client auth', async () => {
    await create('nousage', 'kubernetes.io/kube-apiserver-client', await request('CN=bob'), ['digital signature'])
    await approve('nousage')
    await eventually(async () => conditions(await get('nousage')).some((c) => c.type === 'Failed'), 'Failed condition')
    assert.equal(conditions(await get('nousage')).find((c) => c.type === 'Failed')!.message, 'missing required usage for client certificate: client auth')
  })

  it("approves a node's own client certificate after the authorizer allows selfnodeclient, then signs it", async () => {
    allowed = (a) => a.subresource === 'selfnodeclient' && a.user.name === 'system:node:node-0'
    await create('renew', 'kubernetes.io/kube-apiserver-client-kubelet', await request('O=system:nodes, CN=system:node:node-0'), ['digital signature', 'client auth'], { username: 'system:node:node-0', groups: ['system:nodes'] })
    await eventually(async () => certificateOf(await get('renew')) !== undefined, 'approved and signed')
    const approved = conditions(await get('renew')).find((c) => c.type === 'Approved')!
    assert.equal(approved.reason, 'AutoApproved')
    assert.equal(approved.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.')
    const review = asked.find((a) => a.subresource === 'selfnodeclient')!
    assert.deepEqual([review.verb, review.apiGroup, review.resource], ['create', 'certificates.k8s.io', 'certificatesigningrequests'])
  })

  it("approves a bootstrapping node's request after nodeclient; leaves it pending when nothing allows it", async () => {
    allowed = (a) => a.subresource === 'nodeclient'
    await create('join', 'kubernetes.io/kube-apiserver-client-kubelet', await request('O=system:nodes, CN=system:node:node-9'), ['digital signature', 'key encipherment', 'client auth'], { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] })
    await eventually(async () => conditions(await get('join')).some((c) => c.type === 'Approved'), 'approved')
    assert.equal(conditions(await get('join')).find((c) => c.type === 'Approved')!.message, 'Auto approving kubelet client certificate after SubjectAccessReview.')

    allowed = () => false
    await create('stranger', 'kubernetes.io/kube-apiserver-client-kubelet', await request('O=system:nodes, CN=system:node:node-8'), ['digital signature', 'client auth'], { username: 'mallory', groups: [] })
    await eventually(async () => asked.some((a) => a.user.name === 'mallory'), 'asked about mallory')
    await new Promise((r) => setTimeout(r, 200))
    assert.deepEqual(conditions(await get('stranger')), [])
  })

  it('signing duration: expirationSeconds within ten minutes and the maximum', () => {
    assert.equal(signingDuration(3600_000, undefined), 3600_000)
    assert.equal(signingDuration(3600_000, 60), 600_000)
    assert.equal(signingDuration(3600_000, 7200), 3600_000)
    assert.equal(signingDuration(3600_000, 1800), 1800_000)
  })
})
