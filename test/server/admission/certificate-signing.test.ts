/**
 * The CertificateSigning plugin, with the cases of the reference's
 * plugin/pkg/admission/certificates/signing admission_test.go (TestPlugin_Validate) and its
 * messages; the authorizer is a fake that allows one verb on one signers name.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { CertificateSigning } from '../../../src/server/admission/certificate-signing.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import type { Authorizer } from '../../../src/server/authorization/authorizer.js'

function fakeAuthorizer(verb: string, allowedName: string): Authorizer {
  return { authorize: (x) => ({ decision: x.verb === verb && x.name === allowedName && x.resource === 'signers' ? 'allow' : 'noOpinion' }) }
}

const csr = (signerName: string, status: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'csr' }, spec: { signerName }, status })
const approved = [{ type: 'Approved', status: 'True' }]

function attributes(object: KubeObject, oldObject: KubeObject, subresource = 'status', resource = 'certificatesigningrequests'): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
    resource: { group: 'certificates.k8s.io', version: 'v1', resource },
    subresource,
    namespace: '',
    name: 'csr',
    object,
    oldObject,
    dryRun: false,
    userInfo: { name: 'ignored', groups: [] },
  }
}

const DENIED = (signer: string) => `certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to sign requests with signerName "${signer}"`

describe('admission: CertificateSigning', () => {
  const cases: { name: string; allowed: [string, string]; a: AdmissionAttributes; error?: string }[] = [
    { name: 'should ignore requests to the main resource', allowed: ['sign', 'nothing'], a: attributes(csr('abc.com/xyz', { certificate: 'Y2VydA==' }), csr('abc.com/xyz'), '') },
    { name: 'should allow a request if no status.certificate and conditions changes', allowed: ['sign', 'nothing'], a: attributes(csr('abc.com/xyz', { conditions: approved }), csr('abc.com/xyz', { conditions: approved })) },
    { name: 'should deny a request that sets the certificate if the user does not have permission', allowed: ['sign', 'nothing'], a: attributes(csr('abc.com/xyz', { certificate: 'Y2VydA==' }), csr('abc.com/xyz')), error: DENIED('abc.com/xyz') },
    { name: 'should deny a request that changes the conditions if the user does not have permission', allowed: ['sign', 'nothing'], a: attributes(csr('abc.com/xyz', { conditions: approved }), csr('abc.com/xyz')), error: DENIED('abc.com/xyz') },
    { name: 'should allow request if user is authorized for specific signerName', allowed: ['sign', 'abc.com/xyz'], a: attributes(csr('abc.com/xyz', { certificate: 'Y2VydA==' }), csr('abc.com/xyz')) },
    { name: 'should allow request if user is authorized with wildcard', allowed: ['sign', 'abc.com/*'], a: attributes(csr('abc.com/xyz', { certificate: 'Y2VydA==' }), csr('abc.com/xyz')) },
    { name: 'should deny request if user does not have permission for this signerName', allowed: ['sign', 'notabc.com/xyz'], a: attributes(csr('abc.com/xyz', { certificate: 'Y2VydA==' }), csr('abc.com/xyz')), error: DENIED('abc.com/xyz') },
    {
      name: "should deny request if user attempts to update signerName to a new value they *do* have permission for (the old one counts)",
      allowed: ['sign', 'allowed.com/xyz'],
      a: attributes(csr('allowed.com/xyz', { certificate: 'Y2VydA==' }), csr('notallowed.com/xyz')),
      error: DENIED('notallowed.com/xyz'),
    },
    {
      name: 'a PodCertificateRequest whose certificate chain is set',
      allowed: ['sign', 'nothing'],
      a: attributes(csr('abc.com/xyz', { certificateChain: 'chain' }), csr('abc.com/xyz'), 'status', 'podcertificaterequests'),
      error: 'podcertificaterequests.certificates.k8s.io "csr" is forbidden: user not permitted to sign requests with signerName "abc.com/xyz"',
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = new CertificateSigning({ stores: () => undefined, config: {}, log: () => {}, authorizer: fakeAuthorizer(...c.allowed) })
      const attempt = plugin.validate(c.a)
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }
})
