/**
 * The CertificateApproval plugin, with the cases of the reference's
 * plugin/pkg/admission/certificates/approval admission_test.go (TestPlugin_Validate) and its
 * messages; the authorizer is a fake that allows one verb on one signers name.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { CertificateApproval } from '../../../src/server/admission/certificate-approval.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import type { Attributes, Authorizer } from '../../../src/server/authorization/authorizer.js'

/** Allows `verb` on the certificates.k8s.io `signers` named `allowedName`, as the reference's fakeAuthorizer. */
function fakeAuthorizer(verb: string, allowedName: string, asked: Attributes[] = []): Authorizer {
  return {
    authorize: (attributes) => {
      asked.push(attributes)
      const allowed = attributes.verb === verb && attributes.name === allowedName && attributes.apiGroup === 'certificates.k8s.io' && attributes.resource === 'signers' && attributes.resourceRequest
      return { decision: allowed ? 'allow' : 'noOpinion' }
    },
  }
}

const csr = (signerName: string): KubeObject => ({ metadata: { name: 'csr' }, spec: { signerName } })

function attributes(object: KubeObject | undefined, subresource = 'approval', over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
    resource: { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' },
    subresource,
    namespace: '',
    name: 'csr',
    ...(object ? { object, oldObject: csr('abc.com/xyz') } : {}),
    dryRun: false,
    userInfo: { name: 'ignored', groups: [] },
    ...over,
  }
}

describe('admission: CertificateApproval', () => {
  const cases: { name: string; allowed: [string, string]; a: AdmissionAttributes; error?: string }[] = [
    { name: 'wrong type', allowed: ['approve', 'abc.com/xyz'], a: attributes(undefined), error: 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: expected type CertificateSigningRequest, got: <nil>' },
    { name: 'reject requests if the user does not have permissions', allowed: ['approve', 'nothing'], a: attributes(csr('abc.com/xyz')), error: 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "abc.com/xyz"' },
    { name: 'should allow request if user is authorized for specific signerName', allowed: ['approve', 'abc.com/xyz'], a: attributes(csr('abc.com/xyz')) },
    { name: 'should allow request if user is authorized with wildcard', allowed: ['approve', 'abc.com/*'], a: attributes(csr('abc.com/xyz')) },
    { name: 'should deny request if user does not have permission for this signerName', allowed: ['approve', 'notabc.com/xyz'], a: attributes(csr('abc.com/xyz')), error: 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "abc.com/xyz"' },
    {
      name: 'should deny request if user attempts to update signerName to a new value they *do not* have permission for',
      allowed: ['approve', 'abc.com/xyz'],
      a: attributes(csr('notabc.com/xyz')),
      error: 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "notabc.com/xyz"',
    },
    { name: 'the sign verb is not the approve verb', allowed: ['sign', 'abc.com/xyz'], a: attributes(csr('abc.com/xyz')), error: 'certificatesigningrequests.certificates.k8s.io "csr" is forbidden: user not permitted to approve requests with signerName "abc.com/xyz"' },
    { name: 'should not allow a request if the subresource is not approval (ignored)', allowed: ['approve', 'nothing'], a: attributes(csr('abc.com/xyz'), 'status') },
    { name: 'ignores other resources', allowed: ['approve', 'nothing'], a: attributes(csr('abc.com/xyz'), 'approval', { resource: { group: 'certificates.k8s.io', version: 'v1', resource: 'clustertrustbundles' } }) },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = new CertificateApproval({ stores: () => undefined, config: {}, log: () => {}, authorizer: fakeAuthorizer(...c.allowed) })
      const attempt = plugin.validate(c.a)
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }

  it('asks about the user, the exact signer name, then its domain wildcard', async () => {
    const asked: Attributes[] = []
    const plugin = new CertificateApproval({ stores: () => undefined, config: {}, log: () => {}, authorizer: fakeAuthorizer('approve', 'nothing', asked) })
    await assert.rejects(plugin.validate(attributes(csr('abc.com/xyz'), 'approval', { userInfo: { name: 'alice', groups: ['dev'] } })))
    assert.deepEqual(
      asked.map((x) => [x.user.name, x.verb, x.apiGroup, x.apiVersion, x.resource, x.name]),
      [
        ['alice', 'approve', 'certificates.k8s.io', '*', 'signers', 'abc.com/xyz'],
        ['alice', 'approve', 'certificates.k8s.io', '*', 'signers', 'abc.com/*'],
      ],
    )
  })

  it('handles updates only', () => {
    const plugin = new CertificateApproval({ stores: () => undefined, config: {}, log: () => {} })
    assert.ok(plugin.handles('UPDATE') && !plugin.handles('CREATE'))
  })
})
