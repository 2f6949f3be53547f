/**
 * Validation of the beta and alpha kinds through the real kubectl 1.35 (one server for the
 * file, with their versions and feature gates on): an invalid MutatingAdmissionPolicy, its
 * binding, PodCertificateRequest, Workload and ResourceSlice print the reference's errors as
 * kubectl renders them (cmdutil.checkErr). Texts from
 * `pkg/apis/admissionregistration/validation`, `pkg/apis/certificates/validation`,
 * `pkg/apis/scheduling/validation` and `pkg/apis/resource/validation`.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, sign } from 'node:crypto'
import { KubectlSession } from '../../support/kubectl-session.js'

// api/all: the flags' catalogue of group versions does not list scheduling.k8s.io/v1alpha2 by name.
const RUNTIME_CONFIG = 'api/all=true'
const GATES = 'MutatingAdmissionPolicy=true,PodCertificateRequest=true,GenericWorkload=true'

describe('api: validation of the beta and alpha kinds with the real kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-alpha-', { waitFor: 'ready', args: [`--runtime-config=${RUNTIME_CONFIG}`, `--feature-gates=${GATES}`] })
  })
  after(async () => {
    await session?.close()
  })

  const apply = async (name: string, yaml: string) => session.run('apply', '-f', session.file(name, yaml))

  it('a MutatingAdmissionPolicy matching DELETE, without reinvocationPolicy', async () => {
    const r = await apply(
      'map.yaml',
      [
        'apiVersion: admissionregistration.k8s.io/v1beta1',
        'kind: MutatingAdmissionPolicy',
        'metadata: {name: sidecar}',
        'spec:',
        '  matchConstraints:',
        '    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods]}]',
        '  mutations:',
        '  - patchType: ApplyConfiguration',
        '    applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {\\"a\\": \\"b\\"}}}"}',
        '',
      ].join('\n'),
    )
    assert.equal(r.code, 1, r.stdout)
    assert.equal(
      r.stderr,
      'The MutatingAdmissionPolicy "sidecar" is invalid: \n* spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"\n* spec.reinvocationPolicy: Required value\n',
    )
  })

  it('a valid MutatingAdmissionPolicy is created, a JSON patch naming an unknown variable is not', async () => {
    const policy = (expression: string) =>
      [
        'apiVersion: admissionregistration.k8s.io/v1beta1',
        'kind: MutatingAdmissionPolicy',
        'metadata: {name: labels}',
        'spec:',
        '  reinvocationPolicy: Never',
        '  matchConstraints:',
        '    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]',
        '  mutations:',
        '  - patchType: JSONPatch',
        `    jsonPatch: {expression: ${JSON.stringify(expression)}}`,
        '',
      ].join('\n')
    assert.equal((await apply('ok.yaml', policy('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]'))).code, 0)
    const r = await apply('bad.yaml', policy('patches'))
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      "The MutatingAdmissionPolicy \"labels\" is invalid: spec.mutations[0].jsonPatch.expression: Invalid value: \"patches\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'patches' (in container '')\n | patches\n | ^\n",
    )
  })

  it('a MutatingAdmissionPolicyBinding without policy name', async () => {
    const r = await apply('mapb.yaml', 'apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: sidecar}\nspec:\n  paramRef: {name: config, selector: {}}\n')
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The MutatingAdmissionPolicyBinding "sidecar" is invalid: \n* spec.policyName: Required value\n* spec.paramRef.name: Forbidden: name and selector are mutually exclusive\n* spec.paramRef.selector: Forbidden: name and selector are mutually exclusive\n',
    )
  })

  it('a PodCertificateRequest with a short lifetime and a proof of another UID', async () => {
    const key = generateKeyPairSync('ed25519')
    const pkix = key.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
    const proof = sign(null, Buffer.from('another-uid'), key.privateKey).toString('base64')
    const r = await apply(
      'pcr.yaml',
      [
        'apiVersion: certificates.k8s.io/v1beta1',
        'kind: PodCertificateRequest',
        'metadata: {name: web-cert}',
        'spec:',
        '  signerName: example.com/pod-identity',
        '  podName: web',
        '  podUID: pod-uid-1',
        '  serviceAccountName: default',
        '  serviceAccountUID: sa-uid-1',
        '  nodeName: node-1',
        '  nodeUID: node-uid-1',
        '  maxExpirationSeconds: 600',
        `  pkixPublicKey: ${pkix}`,
        `  proofOfPossession: ${proof}`,
        '',
      ].join('\n'),
    )
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The PodCertificateRequest "web-cert" is invalid: \n* spec.maxExpirationSeconds: Invalid value: 600: must be in the range [3600, 7862400]\n* spec.proofOfPossession: Invalid value: could not verify proof-of-possession signature\n',
    )
  })

  it('a Workload without pod group templates', async () => {
    const r = await apply('workload.yaml', 'apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: trainer}\nspec:\n  podGroupTemplates: []\n')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Workload "trainer" is invalid: spec.podGroupTemplates: Required value: must have at least one item\n')
  })

  it('a ResourceSlice with nine shared counter sets', async () => {
    const sets = Array.from({ length: 9 }, (_, i) => `  - {name: gpu-${i}, counters: {memory: {value: 1Gi}}}`).join('\n')
    const r = await apply('slice.yaml', `apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: node-1-counters}\nspec:\n  driver: gpu.example.com\n  pool: {name: node-1, resourceSliceCount: 1}\n  nodeName: node-1\n  sharedCounters:\n${sets}\n`)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The ResourceSlice "node-1-counters" is invalid: spec.sharedCounters: Too many: 9: must have at most 8 items\n')
  })
})
