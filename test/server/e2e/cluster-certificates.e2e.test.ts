/**
 * Certificates in a whole cluster with kubectl 1.35 against `client cluster start`: a
 * CertificateSigningRequest for the kube-apiserver-client signer, approved with `kubectl
 * certificate approve`, gets a certificate signed by the cluster CA (the CA the server
 * generated in --cert-dir) for the requested subject, and kubectl authenticates with it as that
 * user; a kubelet client CSR its requester may create (nodeclient) is approved on its own with
 * the reference's AutoApproved message. The checks are node:crypto's and the server's own answer to
 * `kubectl auth whoami`.
 */
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { openCluster, waitForKubectl } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'
import { loadX509 } from '../../../src/server/tls/generate.js'

describe('cluster start: a CSR approved and signed (kubectl 1.35)', function () {
  this.timeout(120_000)
  let k: KubectlSession

  before(async function () {
    k = await openCluster(this, 'cluster-certificates-')
  })
  after(async () => k?.close())

  it('signs an approved client CSR with the cluster CA, and kubectl authenticates with the certificate', async () => {
    const x509 = await loadX509()
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
    const keys = (await crypto.webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as crypto.webcrypto.CryptoKeyPair
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'O=devs, CN=alice', keys, signingAlgorithm: alg }, crypto.webcrypto)
    const keyPem = crypto.KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString()
    await k.ok('apply', '-f', k.file('csr.yaml', [
      'apiVersion: certificates.k8s.io/v1', 'kind: CertificateSigningRequest', 'metadata: {name: alice}',
      'spec:', `  request: ${Buffer.from(csr.toString('pem')).toString('base64')}`,
      '  signerName: kubernetes.io/kube-apiserver-client', '  expirationSeconds: 86400', '  usages: [client auth]', '',
    ].join('\n')))
    assert.equal((await k.ok('certificate', 'approve', 'alice')).trim(), 'certificatesigningrequest.certificates.k8s.io/alice approved')
    const issued = await waitForKubectl(k, ['get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}'], /\S/)
    const certPem = Buffer.from(issued, 'base64').toString('utf8')
    const cert = new crypto.X509Certificate(certPem)
    // The CA the server generated in its --cert-dir, which its clients trust.
    const ca = new crypto.X509Certificate(k.server.ca())
    assert.ok(cert.checkIssued(ca), 'issued by the cluster CA')
    assert.ok(cert.verify(ca.publicKey), 'signed by the cluster CA')
    assert.match(cert.subject, /CN=alice/)
    assert.match(cert.subject, /O=devs/)
    // expirationSeconds: a day (within the five minutes of backdating).
    const lifetime = Date.parse(cert.validTo) - Date.parse(cert.validFrom)
    assert.ok(Math.abs(lifetime - (86400 + 300) * 1000) <= 2000, `lifetime ${lifetime} ms`)
    assert.match(await k.ok('get', 'csr', 'alice'), /Approved,Issued/)

    const who = await k.ok('auth', 'whoami', `--client-certificate=${k.file('alice.crt', certPem)}`, `--client-key=${k.file('alice.key', keyPem)}`, '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}')
    assert.equal(who, 'alice ["devs","system:authenticated"]')
  })

  it("auto-approves a node's client CSR its requester may create (nodeclient), and signs it", async () => {
    const x509 = await loadX509()
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
    const keys = (await crypto.webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as crypto.webcrypto.CryptoKeyPair
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'O=system:nodes, CN=system:node:node-7', keys, signingAlgorithm: alg }, crypto.webcrypto)
    await k.ok('apply', '-f', k.file('node-csr.yaml', [
      'apiVersion: certificates.k8s.io/v1', 'kind: CertificateSigningRequest', 'metadata: {name: node-7}',
      'spec:', `  request: ${Buffer.from(csr.toString('pem')).toString('base64')}`,
      '  signerName: kubernetes.io/kube-apiserver-client-kubelet', '  usages: [digital signature, client auth]', '',
    ].join('\n')))
    // The administrator (system:masters) may create certificatesigningrequests/nodeclient.
    await waitForKubectl(k, ['get', 'csr', 'node-7', '-o', 'jsonpath={.status.certificate}'], /\S/)
    const approved = await k.ok('get', 'csr', 'node-7', '-o', 'jsonpath={.status.conditions[?(@.type=="Approved")].reason}: {.status.conditions[?(@.type=="Approved")].message}')
    assert.equal(approved, 'AutoApproved: Auto approving kubelet client certificate after SubjectAccessReview.')
    const cert = new crypto.X509Certificate(Buffer.from(await k.ok('get', 'csr', 'node-7', '-o', 'jsonpath={.status.certificate}'), 'base64'))
    assert.ok(cert.verify(new crypto.X509Certificate(k.server.ca()).publicKey))
    assert.match(cert.subject, /CN=system:node:node-7/)
  })
})
