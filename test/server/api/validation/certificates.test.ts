/**
 * certificates.k8s.io validation, table-driven. Expected texts are the reference's
 * `pkg/apis/certificates/validation/validation.go`, ValidateSignerName of
 * `pkg/apis/core/validation`, `certificates.ParseCSR` and Go's crypto/x509 and crypto/ecdsa
 * verification errors, and ValidateClusterTrustBundle. The requests and certificates are made
 * here with @peculiar/x509.
 */
import assert from 'node:assert/strict'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { validateForUpdate } from '../../../../src/server/api/registry/strategy.js'
import { type Json, createErrors, created, kindTable, strategyOf, updateErrors as updateErrorsOf } from './groups-support.js'
import { strategyOf as strategyOfVersion } from './support.js'

const strategy = strategyOf('certificates.k8s.io', 'certificatesigningrequests')
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64')
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const DNS_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const USAGES =
  'supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"'

let csrPem = ''
let tamperedCsrPem = ''
let rsaCsrPem = ''
let certPem = ''
let otherCertPem = ''

before(async () => {
  const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = (await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=system:node:n1,O=system:nodes', keys, signingAlgorithm: ec }, webcrypto)
  csrPem = csr.toString('pem')
  const der = Buffer.from(csr.rawData)
  der[der.length - 3] = der[der.length - 3]! ^ 0xff
  tamperedCsrPem = x509.PemConverter.encode(der, 'CERTIFICATE REQUEST')
  const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
  const rsaKeys = (await webcrypto.subtle.generateKey(rsa, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  rsaCsrPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=rsa', keys: rsaKeys, signingAlgorithm: rsa }, webcrypto)).toString('pem')
  const certificate = (name: string) =>
    x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '01', name, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: ec }, webcrypto)
  certPem = (await certificate('CN=issued')).toString('pem')
  otherCertPem = (await certificate('CN=other')).toString('pem')
})

const csr = (): Json => ({ spec: { request: b64(csrPem), signerName: 'example.com/signer', usages: ['digital signature', 'client auth'], expirationSeconds: 3600 } })

/**
 * A write through `status` or `approval` of a stored CSR whose status is `stored`: the
 * generic store's preparation (conditions stamped), then its validation.
 */
function subresourceErrors(stored: Json, mutate: (o: Json) => void, subresource: 'status' | 'approval'): string[] {
  const before = created(strategy, csr())
  before.metadata.resourceVersion = '1'
  before.metadata.creationTimestamp = '2024-01-01T00:00:00Z'
  before.status = structuredClone(stored)
  strategy.prepareForStatusUpdate?.(before, before)
  const after = structuredClone(before) as Json
  mutate(after)
  strategy.prepareForStatusUpdate?.(after as KubeObject, before)
  return validateForUpdate(strategy, after as KubeObject, before, subresource).map((c) => `${c.field}: ${c.message}`)
}

describe('validation/certificates: CertificateSigningRequest', () => {
  kindTable(strategy, csr, [
    ['a request that is not PEM', (o) => (o.spec.request = b64('hello')), ['spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST']],
    ['no request', (o) => delete o.spec.request, ['spec.request: Invalid value: null: PEM block type must be CERTIFICATE REQUEST']],
    ['no usages', (o) => (o.spec.usages = []), ['spec.usages: Required value']],
    ['an unknown usage', (o) => o.spec.usages.push('ssh'), [`spec.usages[2]: Unsupported value: "ssh": ${USAGES}`]],
    ['a repeated usage', (o) => o.spec.usages.push('digital signature'), ['spec.usages[2]: Duplicate value: "digital signature"']],
    ['no signerName', (o) => delete o.spec.signerName, ['spec.signerName: Required value']],
    ['a signerName without a path', (o) => (o.spec.signerName = 'example.com'), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['a signerName with two slashes', (o) => (o.spec.signerName = 'example.com/a/b'), ["spec.signerName: Invalid value: \"example.com/a/b\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['a signerName with a one-label domain', (o) => (o.spec.signerName = 'example/signer'), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']],
    ['a signerName domain in capitals', (o) => (o.spec.signerName = 'Example.com/signer'), [`spec.signerName: Invalid value: "Example.com": validating label "Example": ${DNS_LABEL}`]],
    ['a signerName path in capitals', (o) => (o.spec.signerName = 'example.com/Signer'), [`spec.signerName: Invalid value: "Signer": validating label "Signer": ${SUBDOMAIN}`]],
    ['the legacy signerName', (o) => (o.spec.signerName = 'kubernetes.io/legacy-unknown'), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
    ['an expiration under ten minutes', (o) => (o.spec.expirationSeconds = 599), ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']],
    ['a name with a slash (the generic path-segment rule)', (o) => (o.metadata = { name: 'a/b' }), [`metadata.name: Invalid value: "a/b": may not contain '/'`]],
  ], it)

  it('refuses a certificate as request, and a request whose signature does not verify (the []byte printed as base64)', () => {
    const withRequest = (pem: string) => {
      const o = csr()
      o.spec.request = b64(pem)
      return createErrors(strategy, o)
    }
    assert.deepEqual(withRequest(certPem), [`spec.request: Invalid value: "${b64(certPem)}": PEM block type must be CERTIFICATE REQUEST`])
    assert.deepEqual(withRequest(tamperedCsrPem), [`spec.request: Invalid value: "${b64(tamperedCsrPem)}": x509: ECDSA verification failure`])
  })

  it('accepts any name the path-segment rule allows, and an RSA request', () => {
    const o = csr()
    o.metadata = { name: 'node-csr-Ab_C:1' }
    o.spec.request = b64(rsaCsrPem)
    assert.deepEqual(createErrors(strategy, o), [])
  })

  it('approval: Approved xor Denied, True only, no duplicate types', () => {
    const approved = { type: 'Approved', status: 'True', reason: 'OK' }
    const denied = { type: 'Denied', status: 'True', reason: 'No' }
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [approved]), 'approval'), [])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [approved, denied]), 'approval'), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive'])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [{ ...approved, status: 'False' }]), 'approval'), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"'])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [approved, approved]), 'approval'), ['status.conditions[1].type: Duplicate value: "Approved"'])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [{ type: 'Custom', status: 'Maybe' }, { type: '', status: 'True' }]), 'approval'), [
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[1].type: Required value',
    ])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [{ type: 'Failed' }]), 'approval'), ['status.conditions[0].status: Required value'])
  })

  it('status: the certificate may be set (a PEM bundle of certificates), Approved not added, nothing removed', () => {
    const approved = { type: 'Approved', status: 'True', reason: 'OK' }
    assert.deepEqual(subresourceErrors({ conditions: [approved] }, (o) => (o.status.certificate = b64(certPem)), 'status'), [])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.conditions = [approved]), 'status'), ['status.conditions: Forbidden: updates may not add a condition of type "Approved"'])
    assert.deepEqual(subresourceErrors({ conditions: [approved] }, (o) => (o.status.conditions = []), 'status'), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"'])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.certificate = b64('not a certificate')), 'status'), [
      'status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block',
    ])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.certificate = b64(csrPem)), 'status'), [
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"',
    ])
    assert.deepEqual(subresourceErrors({}, (o) => (o.status.certificate = b64(certPem.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n'))), 'status'), [
      'status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted',
    ])
    assert.deepEqual(subresourceErrors({ certificate: b64(certPem) }, (o) => (o.status.certificate = b64(otherCertPem)), 'status'), [
      'status.certificate: Forbidden: updates may not modify existing certificate content',
    ])
  })

  it('approval may not remove a Denied condition; an update of the object keeps spec and status', () => {
    const denied = { type: 'Denied', status: 'True', reason: 'No' }
    assert.deepEqual(subresourceErrors({ conditions: [denied] }, (o) => (o.status.conditions = []), 'approval'), ['status.conditions: Forbidden: updates may not remove a condition of type "Denied"'])
    const before = created(strategy, csr())
    before.metadata.resourceVersion = '1'
    const after = structuredClone(before) as Json
    after.spec.usages = ['ssh']
    after.status = { conditions: [{ type: 'Approved', status: 'True' }] }
    after.metadata.labels = { a: 'b' }
    strategy.prepareForUpdate(after as KubeObject, before)
    assert.deepEqual(validateForUpdate(strategy, after as KubeObject, before), [])
    assert.deepEqual(after.spec.usages, ['digital signature', 'client auth'])
  })
})

describe('validation/certificates: ClusterTrustBundle (v1beta1)', () => {
  const bundles = strategyOfVersion('certificates.k8s.io', 'v1beta1', 'clustertrustbundles')
  let caPem = ''
  let leafPem = ''
  const DNS = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
  before(async () => {
    const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
    const keys = (await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
    const make = (name: string, extensions: x509.Extension[]) =>
      x509.X509CertificateGenerator.createSelfSigned({ serialNumber: '02', name, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000), keys, signingAlgorithm: ec, extensions }, webcrypto)
    caPem = (await make('CN=ca', [new x509.BasicConstraintsExtension(true, undefined, true)])).toString('pem')
    leafPem = (await make('CN=leaf', [])).toString('pem')
  })
  const bundle = (): Json => ({ metadata: { name: 'example.com:signer:roots' }, spec: { signerName: 'example.com/signer', trustBundle: caPem } })
  const TB = 'spec.trustBundle: Invalid value: "<value omitted>"'
  kindTable(bundles, bundle, [
    ['no trust anchor', (o) => (o.spec.trustBundle = ''), [`${TB}: at least one trust anchor must be provided`]],
    ['text without PEM blocks', (o) => (o.spec.trustBundle = 'not pem'), [`${TB}: at least one trust anchor must be provided`]],
    ['a certificate that is no CA', (o) => (o.spec.trustBundle = leafPem), [`${TB}: entry 0 does not have the CA bit set`]],
    ['a certificate request block', (o) => (o.spec.trustBundle = `${caPem}${csrPem}`), [`${TB}: entry 1 has bad block type: CERTIFICATE REQUEST`]],
    ['a block with headers', (o) => (o.spec.trustBundle = caPem.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n')), [`${TB}: entry 0 has PEM block headers`]],
    ['a block that is not X.509', (o) => (o.spec.trustBundle = '-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n'), [`${TB}: entry 0 does not parse as X.509`]],
    ['the same anchor twice', (o) => (o.spec.trustBundle = `${caPem}${caPem}`), [`${TB}: duplicate trust anchor (indices [0 1])`]],
    ['a bundle over 1 MiB', (o) => (o.spec.trustBundle = `${caPem}${' '.repeat(1024 * 1024)}`), ['spec.trustBundle: Too long: may not be more than 1048576 bytes']],
    ['a name without the signer prefix', (o) => (o.metadata = { name: 'roots' }), ['metadata.name: Invalid value: "roots": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:']],
    ['a name with a colon and no signer', (o) => Object.assign(o, { metadata: { name: 'a:b' }, spec: { trustBundle: caPem } }), ['metadata.name: Invalid value: "a:b": ClusterTrustBundle without signer name must not have ":" in its name']],
    ['a name whose suffix is no DNS subdomain', (o) => (o.metadata = { name: 'example.com:signer:Roots' }), [`metadata.name: Invalid value: "example.com:signer:Roots": ${DNS}`]],
    ['a signer name without a path', (o) => Object.assign(o, { metadata: { name: 'example:roots' }, spec: { signerName: 'example', trustBundle: caPem } }), [
      "spec.signerName: Invalid value: \"example\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
    ]],
  ], it)

  it('keeps the signer name fixed on update, and does not parse an unchanged bundle again', () => {
    assert.deepEqual(updateErrorsOf(bundles, bundle(), (o) => (o.spec.signerName = 'example.com/other')), [
      'metadata.name: Invalid value: "example.com:signer:roots": ClusterTrustBundle for signerName example.com/other must be named with prefix example.com:other:',
      'spec.signerName: Invalid value: "example.com/other": field is immutable',
    ])
    const stored = bundle()
    stored.spec.trustBundle = leafPem
    assert.deepEqual(updateErrorsOf(bundles, stored, (o) => (o.metadata.labels = { a: 'b' })), [])
  })
})
