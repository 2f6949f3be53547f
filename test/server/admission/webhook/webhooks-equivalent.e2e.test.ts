import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { KubectlSession } from '../../../support/kubectl-session.js'

type Obj = Record<string, any>

/**
 * The webhooks in the server with the real kubectl: a CRD served at v1 and v2, a validating
 * webhook whose rule names v1 only (matchPolicy left to its default, Equivalent) is called for
 * a v2 object and sent it as v1 with requestKind v2; a matchCondition asks the authorizer; and
 * /metrics then carries the reference's admission series for those calls.
 */
describe('admission: webhooks with matchPolicy Equivalent, the authorizer and the metrics end to end', function () {
  this.timeout(120_000)
  let session: KubectlSession
  let webhook: AdmissionWebhookServer

  before(async function () {
    webhook = await AdmissionWebhookServer.start()
    webhook.respond = (review: Obj) => (review.request.object?.spec?.size > 10 ? { allowed: false, status: { code: 403, message: 'widgets larger than 10 are refused' } } : { allowed: true })
    session = await KubectlSession.open(this, 'adm-equivalent-', { waitFor: 'ready' })
  })
  after(async () => {
    await session?.close()
    await webhook?.close()
  })

  it('a rule on v1 is called for a v2 object, sent as v1; metrics count the calls', async () => {
    await session.ok('apply', '-f', session.file('crd.yaml', [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata: {name: widgets.stable.example.com}',
      'spec:',
      '  group: stable.example.com',
      '  scope: Namespaced',
      '  names: {plural: widgets, kind: Widget}',
      '  versions:',
      '  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}',
      '  - {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}',
      '',
    ].join('\n')))
    await session.ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/widgets.stable.example.com')
    await session.ok('apply', '-f', session.file('webhook.yaml', [
      'apiVersion: admissionregistration.k8s.io/v1',
      'kind: ValidatingWebhookConfiguration',
      'metadata: {name: widgets.example.com}',
      'webhooks:',
      '- name: widgets.example.com',
      `  clientConfig: {url: "${webhook.url('/validate')}", caBundle: "${webhook.caBundle}"}`,
      '  rules: [{operations: [CREATE], apiGroups: [stable.example.com], apiVersions: [v1], resources: [widgets]}]',
      '  sideEffects: None',
      '  admissionReviewVersions: [v1]',
      '  matchConditions:',
      `  - {name: may-create, expression: "authorizer.requestResource.check('create').allowed()"}`,
      '',
    ].join('\n')))
    assert.equal(await session.ok('get', 'validatingwebhookconfiguration', 'widgets.example.com', '-o', 'jsonpath={.webhooks[0].matchPolicy}'), 'Equivalent')
    await sleep(400)
    const widget = (name: string, size: number) => session.file(`${name}.yaml`, ['apiVersion: stable.example.com/v2', 'kind: Widget', `metadata: {name: ${name}, namespace: default}`, `spec: {size: ${size}}`, ''].join('\n'))
    await session.ok('create', '-f', widget('small', 3))
    const r = await session.run('create', '-f', widget('big', 30))
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /admission webhook "widgets\.example\.com" denied the request: widgets larger than 10 are refused/)

    const request = webhook.reviews[0]?.request as Obj
    assert.deepEqual(request.kind, { group: 'stable.example.com', version: 'v1', kind: 'Widget' })
    assert.deepEqual(request.requestKind, { group: 'stable.example.com', version: 'v2', kind: 'Widget' })
    assert.deepEqual(request.requestResource, { group: 'stable.example.com', version: 'v2', resource: 'widgets' })
    assert.equal(request.object.apiVersion, 'stable.example.com/v1')

    const metrics = (await session.server.get('/metrics')).body
    assert.match(metrics, /^apiserver_admission_webhook_request_total\{name="widgets\.example\.com",type="validating",operation="CREATE",code="200",rejected="false"\} 1$/m)
    assert.match(metrics, /^apiserver_admission_webhook_request_total\{name="widgets\.example\.com",type="validating",operation="CREATE",code="403",rejected="true"\} 1$/m)
    assert.match(metrics, /^apiserver_admission_webhook_rejection_count\{name="widgets\.example\.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} 1$/m)
    assert.match(metrics, /^apiserver_admission_controller_admission_duration_seconds_count\{name="ValidatingAdmissionWebhook",type="validate",operation="CREATE",rejected="true"\} 1$/m)
    assert.match(metrics, /^apiserver_admission_step_admission_duration_seconds_bucket\{type="validate",operation="CREATE",rejected="true",le="2\.5"\} \d+$/m)
    assert.match(metrics, /^apiserver_admission_webhook_admission_duration_seconds_bucket\{name="widgets\.example\.com",type="validating",operation="CREATE",rejected="false",le="25"\} 1$/m)
  })
})
