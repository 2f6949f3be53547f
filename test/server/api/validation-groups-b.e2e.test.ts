/**
 * Validation of the configuration groups through the real kubectl 1.35 (one server for the
 * file): invalid webhook configurations, admission policies, flow schemas, priority levels,
 * resource claims, storage objects and a pod resize print the reference's errors, as kubectl
 * renders them (cmdutil.checkErr). Texts from `pkg/apis/admissionregistration/validation`,
 * `pkg/apis/flowcontrol/validation`, `pkg/apis/resource/validation`,
 * `pkg/apis/storage/validation` and ValidatePodResize in `pkg/apis/core/validation`.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

describe('api: object validation of admission, flow control, resource and storage objects with the real kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-b-', { waitFor: 'ready' })
  })
  after(async () => {
    await session?.close()
  })

  const apply = async (name: string, yaml: string) => session.run('apply', '-f', session.file(name, yaml))

  it('a ValidatingWebhookConfiguration with an http URL and no sideEffects', async () => {
    const r = await apply(
      'hook.yaml',
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: hooks}\nwebhooks:\n- name: check.example.com\n  clientConfig: {url: "http://hook.example.com/check"}\n  admissionReviewVersions: [v1]\n',
    )
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      "The ValidatingWebhookConfiguration \"hooks\" is invalid: \n* webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun\n* webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]\n",
    )
  })

  it('a ValidatingAdmissionPolicy whose expression does not compile', async () => {
    const r = await apply(
      'vap.yaml',
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: replicas}\nspec:\n  matchConstraints:\n    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]\n  validations: [{expression: "replicas <= 5"}]\n',
    )
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      "The ValidatingAdmissionPolicy \"replicas\" is invalid: spec.validations[0].expression: Invalid value: \"replicas <= 5\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'replicas' (in container '')\n | replicas <= 5\n | ^\n",
    )
  })

  it('a FlowSchema with precedence 1 and an unknown verb', async () => {
    const r = await apply(
      'fs.yaml',
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: mine}\nspec:\n  priorityLevelConfiguration: {name: workload-low}\n  matchingPrecedence: 1\n  rules:\n  - subjects: [{kind: Group, group: {name: devs}}]\n    nonResourceRules: [{verbs: [fetch], nonResourceURLs: [/healthz]}]\n',
    )
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The FlowSchema "mine" is invalid: \n* spec.matchingPrecedence: Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1\n* spec.rules[0].nonResourceRules[0].verbs: Unsupported value: ["fetch"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"\n',
    )
  })

  it('a PriorityLevelConfiguration with a hand larger than its deck', async () => {
    const r = await apply(
      'pl.yaml',
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: team}\nspec:\n  type: Limited\n  limited:\n    limitResponse: {type: Queue, queuing: {queues: 4, handSize: 8}}\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The PriorityLevelConfiguration "team" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)\n')
  })

  it('a ResourceClaim request with neither exactly nor firstAvailable', async () => {
    const r = await apply('claim.yaml', 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: gpu}\nspec:\n  devices:\n    requests: [{name: gpu}]\n')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The ResourceClaim "gpu" is invalid: spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required\n')
  })

  it('kubectl patch of a VolumeAttributesClass driver name, and of a CSIDriver attachRequired', async () => {
    assert.equal(
      (await apply('vac.yaml', 'apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata: {name: gold}\ndriverName: csi.example.com\nparameters: {iops: "1000"}\n')).code,
      0,
    )
    const r = await session.run('patch', 'volumeattributesclass', 'gold', '-p', '{"driverName":"other.example.com"}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The VolumeAttributesClass "gold" is invalid: driverName: Forbidden: updates to driverName are forbidden.\n')
    assert.equal((await apply('csi.yaml', 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata: {name: csi.example.com}\nspec: {}\n')).code, 0)
    const d = await session.run('patch', 'csidriver', 'csi.example.com', '-p', '{"spec":{"attachRequired":false}}')
    assert.equal(d.code, 1)
    assert.equal(d.stderr, 'The CSIDriver "csi.example.com" is invalid: spec.attachedRequired: Invalid value: false: field is immutable\n')
  })

  it('kubectl patch --subresource=resize: cpu may change, ephemeral storage may not', async () => {
    await session.ok('run', 'web', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"web","image":"nginx","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}}}]}}')
    const ok = await session.run('patch', 'pod', 'web', '--subresource=resize', '-p', '{"spec":{"containers":[{"name":"web","resources":{"requests":{"cpu":"150m"}}}]}}')
    assert.equal(ok.code, 0, ok.stderr)
    assert.equal((await session.ok('get', 'pod', 'web', '-o', 'jsonpath={.spec.containers[0].resources.requests.cpu}')).trim(), '150m')
    const r = await session.run('patch', 'pod', 'web', '--subresource=resize', '-p', '{"spec":{"containers":[{"name":"web","resources":{"limits":{"ephemeral-storage":"1Gi"}}}]}}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Pod "web" is invalid: spec: Forbidden: only cpu and memory resources are mutable\n')
  })
})
