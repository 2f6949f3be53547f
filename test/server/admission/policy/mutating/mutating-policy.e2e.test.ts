/**
 * MutatingAdmissionPolicy end to end with the real kubectl, on a server started as
 * kube-apiserver 1.35 needs it: `--feature-gates=MutatingAdmissionPolicy=true` and
 * `--runtime-config=admissionregistration.k8s.io/v1beta1=true`. A policy and its binding label
 * every ConfigMap by an ApplyConfiguration and set a data key and an escaped label by
 * JSONPatch; a policy whose JSON patch cannot apply refuses under failurePolicy Fail with the
 * generic dispatcher's message (policy_dispatcher.go: the PolicyError text, reason Invalid,
 * which kubectl's checkErr prints for a file's create as `The <kind> "<name>" is invalid: <field>: <cause>`),
 * and is ignored under
 * Ignore.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../../../support/kubectl-session.js'
import { describeEachKubectl } from '../../../../support/kubectl-versions.js'

const POLICY = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: label-configmaps
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  matchConditions:
  - name: not-skipped
    expression: '!has(object.metadata.labels) || !("skip" in object.metadata.labels)'
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"mutated-by": "policy"}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [
          JSONPatch{op: "add", path: "/data/added", value: "by-" + request.operation},
          JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/patched"), value: "yes"}
        ]
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: label-configmaps-binding
spec:
  policyName: label-configmaps
`

const BROKEN = (failurePolicy: string) => `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: broken
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["secrets"]
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "replace", path: "/spec/missing", value: 1}]'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: broken-binding
spec:
  policyName: broken
`

/** Policy changes are read again after a quarter of a second. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400))

describeEachKubectl('admission: MutatingAdmissionPolicy with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'map-e2e-', {
      waitFor: 'ready',
      kubectl: client.tool,
      args: ['--feature-gates=MutatingAdmissionPolicy=true', '--runtime-config=admissionregistration.k8s.io/v1beta1=true'],
    })
  })
  after(async () => {
    await session?.close()
  })

  it('serves the v1beta1 kinds the gate and the runtime config turn on', async () => {
    const resources = await session.ok('api-resources', '--api-group=admissionregistration.k8s.io', '-o', 'name')
    assert.match(resources, /^mutatingadmissionpolicies\.admissionregistration\.k8s\.io$/m)
    assert.match(resources, /^mutatingadmissionpolicybindings\.admissionregistration\.k8s\.io$/m)
  })

  it('a policy and its binding label a ConfigMap (ApplyConfiguration) and set fields by JSONPatch', async () => {
    assert.equal(
      await session.ok('apply', '-f', session.file('policy.yaml', POLICY)),
      'mutatingadmissionpolicy.admissionregistration.k8s.io/label-configmaps created\nmutatingadmissionpolicybinding.admissionregistration.k8s.io/label-configmaps-binding created\n',
    )
    await settle()
    assert.equal(await session.ok('create', 'configmap', 'mutated', '-n', 'default', '--from-literal=k=v'), 'configmap/mutated created\n')
    const labels = JSON.parse(await session.ok('get', 'configmap', 'mutated', '-n', 'default', '-o', 'jsonpath={.metadata.labels}'))
    assert.deepEqual(labels, { 'mutated-by': 'policy', 'example.com/patched': 'yes' })
    const data = JSON.parse(await session.ok('get', 'configmap', 'mutated', '-n', 'default', '-o', 'jsonpath={.data}'))
    assert.deepEqual(data, { k: 'v', added: 'by-CREATE' })

    // An update goes through the policy too: the request's operation reaches the expression.
    await session.ok('label', 'configmap', 'mutated', '-n', 'default', 'extra=1')
    assert.equal(await session.ok('get', 'configmap', 'mutated', '-n', 'default', '-o', 'jsonpath={.data.added}'), 'by-UPDATE')

    // matchConditions: a ConfigMap labelled `skip` is left alone.
    await session.ok('apply', '-f', session.file('skipped.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skipped\n  namespace: default\n  labels: {skip: "true"}\ndata: {k: v}\n'))
    assert.equal(await session.ok('get', 'configmap', 'skipped', '-n', 'default', '-o', 'jsonpath={.metadata.labels}'), '{"skip":"true"}')
  })

  it('failurePolicy Fail refuses with the policy error; Ignore lets the request through unchanged', async () => {
    await session.ok('apply', '-f', session.file('broken.yaml', BROKEN('Fail')))
    await settle()
    const secret = session.file('refused.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: refused\n  namespace: default\nstringData: {k: v}\n')
    const refused = await session.run('create', '-f', secret)
    assert.equal(refused.code, 1)
    // kubectl prints each cause as `<field>: <message>` (statusCausesToAggrError); this one has no field.
    assert.equal(
      refused.stderr.trim(),
      `The secrets "refused" is invalid: : policy 'broken' with binding 'broken-binding' denied request: JSON Patch: replace operation does not apply: doc is missing path: /spec/missing: missing value`,
    )
    const absent = await session.run('get', 'secret', 'refused', '-n', 'default')
    assert.equal(absent.stderr.trim(), 'Error from server (NotFound): secrets "refused" not found')

    await session.ok('apply', '-f', session.file('ignored.yaml', BROKEN('Ignore')))
    await settle()
    assert.equal(await session.ok('create', 'secret', 'generic', 'ignored', '-n', 'default', '--from-literal=k=v'), 'secret/ignored created\n')
  })
})
