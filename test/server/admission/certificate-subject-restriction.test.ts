/**
 * The CertificateSubjectRestriction plugin, with the cases of the reference's
 * plugin/pkg/admission/certificates/subjectrestriction admission_test.go (TestPlugin_Validate)
 * and its messages.
 */
import assert from 'node:assert/strict'
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { CertificateSubjectRestriction } from '../../../src/server/admission/certificate-subject-restriction.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'

async function requestFor(name: string): Promise<string> {
  const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = (await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: ec }, webcrypto)
  return Buffer.from(csr.toString('pem')).toString('base64')
}

function attributes(object: KubeObject | undefined, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
    resource: { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' },
    subresource: '',
    namespace: '',
    name: 'csr',
    ...(object ? { object } : {}),
    dryRun: false,
    ...over,
  }
}

const csr = (signerName: string, request: string): KubeObject => ({ metadata: { name: 'csr' }, spec: { signerName, request } })
const FORBIDDEN = 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: '

describe('admission: CertificateSubjectRestriction', () => {
  let masters = ''
  let plain = ''
  before(async () => {
    masters = await requestFor('CN=jane,O=system:masters')
    plain = await requestFor('CN=jane,O=system:authenticated')
  })

  const plugin = new CertificateSubjectRestriction()
  const cases: { name: string; a: () => AdmissionAttributes; error?: string }[] = [
    { name: 'ignored resource', a: () => attributes(csr('kubernetes.io/kube-apiserver-client', masters), { resource: { group: 'foo', version: 'v1', resource: 'bar' } }) },
    { name: 'ignored subresource', a: () => attributes(csr('kubernetes.io/kube-apiserver-client', masters), { subresource: 'approval' }) },
    { name: 'wrong type', a: () => attributes(undefined), error: `${FORBIDDEN}expected type CertificateSigningRequest, got: <nil>` },
    { name: 'some other signer', a: () => attributes(csr('kubernetes.io/kube-apiserver-client-kubelet', masters)) },
    { name: 'invalid request', a: () => attributes(csr('kubernetes.io/kube-apiserver-client', Buffer.from('invalid').toString('base64'))), error: `${FORBIDDEN}failed to parse CSR: PEM block type must be CERTIFICATE REQUEST` },
    { name: 'some other group', a: () => attributes(csr('kubernetes.io/kube-apiserver-client', plain)) },
    { name: 'request for system:masters', a: () => attributes(csr('kubernetes.io/kube-apiserver-client', masters)), error: `${FORBIDDEN}use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed` },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const attempt = plugin.validate(c.a())
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }
})
