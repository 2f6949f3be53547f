/**
 * The ClusterTrustBundleAttest plugin, with the cases of the reference's
 * plugin/pkg/admission/certificates/ctbattest admission_test.go (TestValidate) and its
 * messages; the authorizer is a fake that allows one verb on one signers name.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { ClusterTrustBundleAttest } from '../../../src/server/admission/cluster-trust-bundle-attest.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import type { Authorizer } from '../../../src/server/authorization/authorizer.js'

function fakeAuthorizer(verb: string, allowedName: string): Authorizer {
  return { authorize: (x) => ({ decision: x.verb === verb && x.name === allowedName && x.resource === 'signers' && x.apiGroup === 'certificates.k8s.io' ? 'allow' : 'noOpinion' }) }
}

const bundle = (signerName: string): KubeObject => ({ metadata: { name: 'foo' }, spec: { signerName, trustBundle: 'ignored' } })

function attributes(operation: AdmissionOperation, object: KubeObject | undefined, oldObject?: KubeObject): AdmissionAttributes {
  return {
    operation,
    kind: { group: 'certificates.k8s.io', version: 'v1beta1', kind: 'ClusterTrustBundle' },
    resource: { group: 'certificates.k8s.io', version: 'v1beta1', resource: 'clustertrustbundles' },
    subresource: '',
    namespace: '',
    name: 'foo',
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    userInfo: { name: 'ignored', groups: [] },
  }
}

const FORBIDDEN = 'clustertrustbundles.certificates.k8s.io "foo" is forbidden: '
const on = { featureGates: new Map([['ClusterTrustBundle', true]]) }

describe('admission: ClusterTrustBundleAttest', () => {
  const cases: { name: string; allowed: [string, string]; a: AdmissionAttributes; error?: string }[] = [
    { name: 'wrong type on create', allowed: ['attest', 'foo.com/bar'], a: attributes('CREATE', undefined), error: `${FORBIDDEN}expected type ClusterTrustBundle, got: <nil>` },
    { name: 'wrong type on update', allowed: ['attest', 'foo.com/bar'], a: attributes('UPDATE', bundle('foo.com/bar')), error: `${FORBIDDEN}expected type ClusterTrustBundle, got: <nil>` },
    { name: 'should allow request if user is authorized for specific signerName', allowed: ['attest', 'foo.com/bar'], a: attributes('CREATE', bundle('foo.com/bar')) },
    { name: 'should allow request if user is authorized with wildcard', allowed: ['attest', 'foo.com/*'], a: attributes('CREATE', bundle('foo.com/bar')) },
    { name: 'should deny request if user does not have permission for this signerName', allowed: ['attest', 'abc.com/*'], a: attributes('CREATE', bundle('foo.com/bar')), error: `${FORBIDDEN}user not permitted to attest for signerName "foo.com/bar"` },
    {
      name: 'should deny request if user attempts to update signerName to a new value they *do* have permission for',
      allowed: ['attest', 'foo.com/bar'],
      a: attributes('UPDATE', bundle('foo.com/bar'), bundle('foo.com/old')),
      error: `${FORBIDDEN}changing signerName is forbidden`,
    },
    {
      name: 'should deny request if user attempts to update signerName to a new value they *do not* have permission for',
      allowed: ['attest', 'foo.com/bar'],
      a: attributes('UPDATE', bundle('foo.com/new'), bundle('foo.com/bar')),
      error: `${FORBIDDEN}changing signerName is forbidden`,
    },
    { name: 'should allow request if user is not authorized for any signer and the bundle has no signer name', allowed: ['attest', 'nothing'], a: attributes('CREATE', bundle('')) },
    { name: 'an update keeping the signer name, authorized', allowed: ['attest', 'foo.com/bar'], a: attributes('UPDATE', bundle('foo.com/bar'), bundle('foo.com/bar')) },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const plugin = new ClusterTrustBundleAttest({ stores: () => undefined, config: on, log: () => {}, authorizer: fakeAuthorizer(...c.allowed) })
      const attempt = plugin.validate(c.a)
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }

  it('is inert while the ClusterTrustBundle feature gate is off', async () => {
    const plugin = new ClusterTrustBundleAttest({ stores: () => undefined, config: { featureGates: new Map([['ClusterTrustBundle', false]]) }, log: () => {}, authorizer: fakeAuthorizer('attest', 'nothing') })
    await plugin.validate(attributes('CREATE', bundle('foo.com/bar')))
  })
})
