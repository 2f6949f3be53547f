/**
 * PodCertificateRequest validation (certificates.k8s.io/v1beta1), table-driven. Expected texts
 * are the reference's `pkg/apis/certificates/validation/validation.go`
 * (ValidatePodCertificateRequestCreate, ValidatePodCertificateRequestUpdate,
 * ValidatePodCertificateRequestStatusUpdate); the keys, proofs of possession and certificates
 * are made here with node:crypto and @peculiar/x509.
 */
import assert from 'node:assert/strict'
import { type KeyObject, generateKeyPairSync, sign, webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { validatePodCertificateRequestStatusUpdate } from '../../../../src/server/api/validation/certificates-pod.js'
import { type Json, created, kindTable, strategyOf, updateTable } from './groups-support.js'

const strategy = strategyOf('certificates.k8s.io', 'podcertificaterequests', 'v1beta1')
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const POD_UID = 'pod-uid-1'
const b64 = (b: Buffer | ArrayBuffer) => Buffer.from(b as ArrayBuffer).toString('base64')

const ed = generateKeyPairSync('ed25519')
const edPublic = b64(ed.publicKey.export({ type: 'spki', format: 'der' }))
const edProof = b64(sign(null, Buffer.from(POD_UID), ed.privateKey))
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 })
const x25519 = generateKeyPairSync('x25519')
const spki = (k: { publicKey: KeyObject }) => b64(k.publicKey.export({ type: 'spki', format: 'der' }))

const request = (): Json => ({
  metadata: { name: 'pod-1-cert' },
  spec: {
    signerName: 'example.com/pod-identity',
    podName: 'pod-1',
    podUID: POD_UID,
    serviceAccountName: 'default',
    serviceAccountUID: 'sa-uid-1',
    nodeName: 'node-1',
    nodeUID: 'node-uid-1',
    maxExpirationSeconds: 86400,
    pkixPublicKey: edPublic,
    proofOfPossession: edProof,
  },
})

describe('validation/certificates: PodCertificateRequest', () => {
  kindTable(strategy, request, [
    ['no signer name', (o) => (o.spec.signerName = ''), ['spec.signerName: Required value']],
    ['a signer name without a path', (o) => (o.spec.signerName = 'example.com'), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['a pod name that is not a subdomain', (o) => (o.spec.podName = 'Pod_1'), [`spec.podName: Invalid value: "Pod_1": ${SUBDOMAIN}`]],
    ['no pod UID', (o) => (o.spec.podUID = ''), ['spec.podUID: Invalid value: "": must not be empty', 'spec.proofOfPossession: Invalid value: could not verify proof-of-possession signature']],
    ['a service account UID over 128 bytes', (o) => (o.spec.serviceAccountUID = 'u'.repeat(129)), ['spec.serviceAccountUID: Too long: may not be more than 128 bytes']],
    ['no node UID and a bad node name', (o) => Object.assign(o.spec, { nodeName: 'node..1', nodeUID: '' }), [`spec.nodeName: Invalid value: "node..1": ${SUBDOMAIN}`, 'spec.nodeUID: Invalid value: "": must not be empty']],
    ['a pod UID over 128 bytes', (o) => (o.spec.podUID = 'p'.repeat(129)), ['spec.podUID: Too long: may not be more than 128 bytes', 'spec.proofOfPossession: Invalid value: could not verify proof-of-possession signature']],
    ['a kubernetes.io signer over 24 hours', (o) => Object.assign(o.spec, { signerName: 'kubernetes.io/kube-apiserver-client-pod', maxExpirationSeconds: 86401 }), [
      'spec.maxExpirationSeconds: Invalid value: 86401: must be in the range [3600, 86400]',
    ]],
    ['another signer over 91 days', (o) => (o.spec.maxExpirationSeconds = 91 * 86400 + 1), ['spec.maxExpirationSeconds: Invalid value: 7862401: must be in the range [3600, 7862400]']],
    ['under an hour', (o) => (o.spec.maxExpirationSeconds = 3599), ['spec.maxExpirationSeconds: Invalid value: 3599: must be in the range [3600, 7862400]']],
    ['a public key that does not parse', (o) => (o.spec.pkixPublicKey = b64(Buffer.from('not a key'))), [`spec.pkixPublicKey: Invalid value: "${b64(Buffer.from('not a key'))}": must be a valid PKIX-serialized public key`]],
    ['an X25519 key', (o) => (o.spec.pkixPublicKey = spki(x25519)), [`spec.pkixPublicKey: Invalid value: "${spki(x25519)}": unknown public key type; supported types are Ed25519, ECDSA, and RSA`]],
    ['a 2048-bit RSA key', (o) => (o.spec.pkixPublicKey = spki(rsa2048)), ['spec.pkixPublicKey: Invalid value: "2048-bit modulus": RSA keys must have modulus size 3072 or 4096']],
    ['a proof of another UID', (o) => (o.spec.proofOfPossession = b64(sign(null, Buffer.from('other'), ed.privateKey))), ['spec.proofOfPossession: Invalid value: could not verify proof-of-possession signature']],
    ['an ECDSA proof that does not match', (o) => Object.assign(o.spec, { pkixPublicKey: spki(ec), proofOfPossession: edProof }), ['spec.proofOfPossession: Invalid value: could not verify proof-of-possession signature']],
    ['a proof over 10 KiB', (o) => (o.spec.proofOfPossession = b64(Buffer.alloc(10 * 1024 + 1))), ['spec.proofOfPossession: Too long: may not be more than 10240 bytes']],
    ['an ECDSA P-256 key with its proof', (o) => Object.assign(o.spec, { pkixPublicKey: spki(ec), proofOfPossession: b64(sign('sha256', Buffer.from(POD_UID), ec.privateKey)) }), []],
  ], it)

  it('sets an omitted maxExpirationSeconds to a day, as the API documents', () => {
    const o = request()
    delete o.spec.maxExpirationSeconds
    assert.equal((created(strategy, o).spec as Json).maxExpirationSeconds, 86400)
  })

  updateTable(strategy, request, [
    ['the spec is immutable', (o) => (o.spec.maxExpirationSeconds = 3600), ['spec: Invalid value: field is immutable']],
    ['labels may change', (o) => (o.metadata.labels = { a: 'b' }), []],
  ], it)

  // The reference builds these paths as NewPath("status", "conditions", formatIndex(i), "type"): the
  // index is a child name, so Path.String() prints `status.conditions.[0].type`.
  const cond = (type: string, status = 'True') => ({ type, status, reason: 'R', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' })
  updateTable(strategy, request, [
    ['an unknown condition type', (o) => (o.status = { conditions: [cond('Approved')] }), ['status.conditions.[0].type: Unsupported value: "Approved": supported values: "Issued", "Denied", "Failed"']],
    ['two terminal conditions', (o) => (o.status = { conditions: [cond('Denied'), cond('Failed')] }), ['status.conditions.[1].type: Invalid value: "Failed": There may be at most one condition with type "Issued", "Denied", or "Failed"']],
    ['a terminal condition that is not True', (o) => (o.status = { conditions: [cond('Denied', 'False')] }), ['status.conditions.[0].status: Unsupported value: "False": supported values: "True"']],
    ['a denial with a certificate', (o) => (o.status = { conditions: [cond('Denied')], certificateChain: 'x' }), ['status: Invalid value: non-condition status fields must be empty when denying or failing the PodCertificateRequest']],
    ['a status change without a terminal condition', (o) => (o.status = { notBefore: '2024-01-01T00:00:00Z' }), ['status: Invalid value: status is immutable unless transitioning to "Issued", "Denied", or "Failed"']],
    ['issued without a certificate', (o) => (o.status = { conditions: [cond('Issued')], certificateChain: '' }), ['status.certificateChain: Invalid value: "": issued certificate chain must contain at least one certificate']],
    ['issued with another PEM block', (o) => (o.status = { conditions: [cond('Issued')], certificateChain: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }), [
      'status.certificateChain: Invalid value: "-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----\\n": issued certificate chain must consist entirely of CERTIFICATE PEM blocks',
    ]],
    ['issued with a leaf that does not parse', (o) => (o.status = { conditions: [cond('Issued')], certificateChain: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }), [
      'status.certificateChain: Invalid value: "-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\\n": leaf certificate does not parse as valid X.509',
    ]],
    ['a denial', (o) => (o.status = { conditions: [cond('Denied')] }), []],
  ], it, 'status')

  describe('an issued certificate', () => {
    let leafOwn = ''
    let leafOther = ''
    const notBefore = new Date(Math.floor(Date.now() / 1000) * 1000)
    const notAfter = new Date(notBefore.getTime() + 2 * 3600 * 1000)
    before(async () => {
      const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
      const ca = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
      const subject = await webcrypto.subtle.importKey('spki', Buffer.from(edPublic, 'base64'), { name: 'Ed25519' }, true, ['verify'])
      const other = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
      const issue = async (publicKey: webcrypto.CryptoKey) =>
        (await x509.X509CertificateGenerator.create({ serialNumber: '01', subject: 'CN=pod-1', issuer: 'CN=ca', notBefore, notAfter, signingAlgorithm: alg, publicKey, signingKey: ca.privateKey }, webcrypto)).toString('pem')
      leafOwn = await issue(subject)
      leafOther = await issue(other.publicKey)
    })
    const old = (): KubeObject => {
      const o = request() as KubeObject
      o.metadata.namespace = 'default'
      o.status = {}
      return o
    }
    const issued = (chain: string, times: Json) => {
      const o = old()
      o.status = { conditions: [{ type: 'Issued', status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' }], certificateChain: chain, ...times }
      return validatePodCertificateRequestStatusUpdate(o, old(), notBefore).map((e) => `${e.field}: ${e.message}`)
    }
    const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z')
    const times = () => ({ notBefore: iso(notBefore), notAfter: iso(notAfter), beginRefreshAt: iso(new Date(notBefore.getTime() + 3600 * 1000)) })

    it('accepts the certificate of the requested key with consistent times', () => {
      assert.deepEqual(issued(leafOwn, times()), [])
    })
    it('refuses a certificate of another key', () => {
      assert.deepEqual(issued(leafOther, times()), [`status.certificateChain: Invalid value: ${JSON.stringify(leafOther)}: leaf certificate was not issued to the requested public key`])
    })
    it('requires the three times', () => {
      assert.deepEqual(issued(leafOwn, {}), [
        'status.notBefore: Required value: must be present and consistent with the issued certificate',
        'status.notAfter: Required value: must be present and consistent with the issued certificate',
        'status.beginRefreshAt: Required value: must be present and in the range [notbefore+10min, notafter-10min]',
      ])
    })
    it('refuses a refresh time less than 10 minutes before notAfter', () => {
      const late = new Date(notAfter.getTime() - 5 * 60 * 1000)
      const expected = `${late.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`
      assert.deepEqual(issued(leafOwn, { ...times(), beginRefreshAt: iso(late) }), [`status.beginRefreshAt: Invalid value: ${expected}: must be at least 10 minutes before status.notAfter`])
    })
    it('refuses a notAfter other than the certificate\'s', () => {
      const wrong = new Date(notAfter.getTime() + 1000)
      assert.deepEqual(issued(leafOwn, { ...times(), notAfter: iso(wrong) }), [
        `status.notAfter: Invalid value: ${wrong.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC: must be set to the NotAfter time encoded in the leaf certificate`,
      ])
    })
  })
})
