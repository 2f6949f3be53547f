/**
 * The admission metrics (the reference's admission/metrics, metrics_test.go and the
 * dispatchers' observations) after real calls of an HTTPS webhook on 127.0.0.1 and of the
 * chain: names, label sets and buckets as the reference registers them; a webhook's request
 * count by the code it came to, rejections by error type (calling_webhook_error only when the
 * webhook does not fail open; 400 from the validating dispatcher, 503 from the mutating one for
 * a webhook that cannot be reached), the fail-open count, and the match conditions' counters.
 */
import assert from 'node:assert/strict'
import { Registry } from 'prom-client'

import type { AdmissionAttributes } from '../../../../src/server/admission/attributes.js'
import { AdmissionChain } from '../../../../src/server/admission/chain.js'
import { type AdmissionPlugin, handlesOnly } from '../../../../src/server/admission/interfaces.js'
import { AdmissionMetrics } from '../../../../src/server/admission/metrics.js'
import { MutatingAdmissionWebhook } from '../../../../src/server/admission/webhook/mutating.js'
import { ValidatingAdmissionWebhook } from '../../../../src/server/admission/webhook/validating.js'
import { errors } from '../../../../src/server/api/status-errors.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { refusal } from '../table-support.js'
import { type FakeStores, configuration, fakeStores, podAttributes } from './support.js'

type Obj = Record<string, any>

describe('admission: the admission metrics', function () {
  this.timeout(20_000)
  let server: AdmissionWebhookServer
  let stores: FakeStores
  let registry: Registry

  before(async () => {
    server = await AdmissionWebhookServer.start()
  })
  after(async () => server.close())
  beforeEach(() => {
    stores = fakeStores()
    registry = new Registry()
    stores.init.metrics = new AdmissionMetrics(registry)
    server.reviews.length = 0
    server.respond = () => ({ allowed: true })
    server.rawAnswer = undefined
    server.rawStatus = 200
  })

  const hook = (name: string, over: Obj = {}) => configuration(name, { name, clientConfig: { url: server.url('/hook'), caBundle: server.caBundle }, ...over })
  /** A webhook that cannot be reached: nothing listens on port 1. */
  const down = (name: string, over: Obj = {}) => configuration(name, { name, clientConfig: { url: 'https://127.0.0.1:1/hook', caBundle: server.caBundle }, ...over })
  const scrape = () => registry.metrics()
  /** The lines of one series family, e.g. all `..._webhook_request_total{...} n` lines. */
  const lines = async (name: string) => (await scrape()).split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))

  it('registers the reference families with their types and buckets', async () => {
    stores.validating = [hook('ok.example.com')]
    await new ValidatingAdmissionWebhook(stores.init).validate(podAttributes())
    const text = await scrape()
    for (const [name, type] of [
      ['apiserver_admission_step_admission_duration_seconds', 'histogram'],
      ['apiserver_admission_step_admission_duration_seconds_summary', 'summary'],
      ['apiserver_admission_controller_admission_duration_seconds', 'histogram'],
      ['apiserver_admission_webhook_admission_duration_seconds', 'histogram'],
      ['apiserver_admission_webhook_rejection_count', 'counter'],
      ['apiserver_admission_webhook_fail_open_count', 'counter'],
      ['apiserver_admission_webhook_request_total', 'counter'],
      ['apiserver_admission_match_condition_evaluation_errors_total', 'counter'],
      ['apiserver_admission_match_condition_exclusions_total', 'counter'],
      ['apiserver_admission_match_condition_evaluation_seconds', 'histogram'],
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, 'm'))
    }
    assert.match(text, /^# HELP apiserver_admission_webhook_admission_duration_seconds \[STABLE\] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type \(validate or admit\)\.$/m)
    const buckets = (await lines('apiserver_admission_webhook_admission_duration_seconds_bucket')).map((l) => /le="([^"]+)"/.exec(l)?.[1])
    assert.deepEqual(buckets, ['0.005', '0.025', '0.1', '0.5', '1', '2.5', '10', '25', '+Inf'])
    assert.deepEqual(await lines('apiserver_admission_webhook_admission_duration_seconds_count'), [
      'apiserver_admission_webhook_admission_duration_seconds_count{name="ok.example.com",type="validating",operation="CREATE",rejected="false"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="ok.example.com",type="validating",operation="CREATE",code="200",rejected="false"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_webhook_rejection_count'), [])
  })

  it("a webhook's refusal: no_error with its code", async () => {
    stores.validating = [hook('deny.example.com')]
    server.respond = () => ({ allowed: false, status: { code: 403, message: 'no' } })
    await refusal(new ValidatingAdmissionWebhook(stores.init).validate(podAttributes()))
    assert.deepEqual(await lines('apiserver_admission_webhook_rejection_count'), [
      'apiserver_admission_webhook_rejection_count{name="deny.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="deny.example.com",type="validating",operation="CREATE",code="403",rejected="true"} 1',
    ])
  })

  it('a webhook that cannot be called: calling_webhook_error under Fail (400 validating, 503 mutating); the fail-open count under Ignore', async () => {
    stores.validating = [down('v.example.com')]
    stores.mutating = [down('m.example.com')]
    assert.equal((await refusal(new ValidatingAdmissionWebhook(stores.init).validate(podAttributes())))?.code, 500)
    assert.equal((await refusal(new MutatingAdmissionWebhook(stores.init).admit(podAttributes())))?.code, 500)
    assert.deepEqual(await lines('apiserver_admission_webhook_rejection_count'), [
      'apiserver_admission_webhook_rejection_count{name="v.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="400"} 1',
      'apiserver_admission_webhook_rejection_count{name="m.example.com",type="admit",operation="CREATE",error_type="calling_webhook_error",rejection_code="503"} 1',
    ])
    stores.validating = [down('v.example.com', { failurePolicy: 'Ignore' })]
    await new ValidatingAdmissionWebhook(stores.init).validate(podAttributes())
    assert.deepEqual(await lines('apiserver_admission_webhook_fail_open_count'), ['apiserver_admission_webhook_fail_open_count{name="v.example.com",type="validating"} 1'])
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="v.example.com",type="validating",operation="CREATE",code="400",rejected="true"} 1',
      'apiserver_admission_webhook_request_total{name="m.example.com",type="admit",operation="CREATE",code="503",rejected="true"} 1',
      'apiserver_admission_webhook_request_total{name="v.example.com",type="validating",operation="CREATE",code="400",rejected="false"} 1',
    ])
    assert.equal((await lines('apiserver_admission_webhook_rejection_count')).length, 2, 'failing open is no rejection')
  })

  it("a webhook answering an error status: calling_webhook_error with the answer's code", async () => {
    stores.validating = [hook('broken.example.com')]
    server.rawAnswer = () => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the webhook is broken', code: 500 })
    server.rawStatus = 500
    const got = await refusal(new ValidatingAdmissionWebhook(stores.init).validate(podAttributes()))
    assert.equal(got?.message, 'Internal error occurred: failed calling webhook "broken.example.com": failed to call webhook: the webhook is broken')
    assert.deepEqual(await lines('apiserver_admission_webhook_rejection_count'), [
      'apiserver_admission_webhook_rejection_count{name="broken.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="500"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="broken.example.com",type="validating",operation="CREATE",code="500",rejected="true"} 1',
    ])
  })

  it('a mutating call that patches: code 200, type admit', async () => {
    stores.mutating = [hook('patch.example.com')]
    server.respond = () => ({ allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]) })
    await new MutatingAdmissionWebhook(stores.init).admit(podAttributes())
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="patch.example.com",type="admit",operation="CREATE",code="200",rejected="false"} 1',
    ])
  })

  it('match conditions: an exclusion per skipped call, an error per failed expression, their evaluation time', async () => {
    stores.validating = [
      hook('skip.example.com', { matchConditions: [{ name: 'never', expression: 'false' }] }),
      hook('err.example.com', { failurePolicy: 'Ignore', matchConditions: [{ name: 'a', expression: "object.metadata.annotations['x'] == 'y'" }, { name: 'b', expression: "object.spec.missing == 'y'" }] }),
    ]
    await new ValidatingAdmissionWebhook(stores.init).validate(podAttributes())
    assert.equal(server.reviews.length, 0)
    // The configurations are read sorted by name: err before skip.
    assert.deepEqual(await lines('apiserver_admission_match_condition_exclusions_total'), [
      'apiserver_admission_match_condition_exclusions_total{name="err.example.com",kind="webhook",type="validating",operation="CREATE"} 1',
      'apiserver_admission_match_condition_exclusions_total{name="skip.example.com",kind="webhook",type="validating",operation="CREATE"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_match_condition_evaluation_errors_total'), [
      'apiserver_admission_match_condition_evaluation_errors_total{name="err.example.com",kind="webhook",type="validating",operation="CREATE"} 2',
    ])
    assert.equal((await lines('apiserver_admission_match_condition_evaluation_seconds_count')).length, 2)
  })

  it('codes above 600 are reported as 600 (metrics.go: the cardinality kept bounded)', async () => {
    const metrics = stores.init.metrics!
    metrics.observeWebhook('odd.example.com', 0.001, true, 'UPDATE', 'validating', 799)
    metrics.observeWebhookRejection('odd.example.com', 'validating', 'UPDATE', 'no_error', 1000)
    assert.deepEqual(await lines('apiserver_admission_webhook_request_total'), [
      'apiserver_admission_webhook_request_total{name="odd.example.com",type="validating",operation="UPDATE",code="600",rejected="true"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_webhook_rejection_count'), [
      'apiserver_admission_webhook_rejection_count{name="odd.example.com",type="validating",operation="UPDATE",error_type="no_error",rejection_code="600"} 1',
    ])
  })

  it('the chain: a step per phase and a controller series per plugin, rejected when it refuses', async () => {
    const attributes: AdmissionAttributes = podAttributes()
    const chain = new AdmissionChain(
      [
        { name: 'Mutator', plugin: { handles: handlesOnly('CREATE'), admit: async () => {} } as AdmissionPlugin },
        { name: 'Refuser', plugin: { handles: handlesOnly('CREATE'), validate: async () => { throw errors.badRequest('no') } } as AdmissionPlugin },
        { name: 'DeleteOnly', plugin: { handles: handlesOnly('DELETE'), validate: async () => {} } as AdmissionPlugin },
      ],
      stores.init.metrics,
    )
    await chain.admit(attributes)
    await refusal(chain.validate(attributes))
    assert.deepEqual(await lines('apiserver_admission_step_admission_duration_seconds_count'), [
      'apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 1',
      'apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_step_admission_duration_seconds_summary_count'), [
      'apiserver_admission_step_admission_duration_seconds_summary_count{type="admit",operation="CREATE",rejected="false"} 1',
      'apiserver_admission_step_admission_duration_seconds_summary_count{type="validate",operation="CREATE",rejected="true"} 1',
    ])
    assert.deepEqual(await lines('apiserver_admission_controller_admission_duration_seconds_count'), [
      'apiserver_admission_controller_admission_duration_seconds_count{name="Mutator",type="admit",operation="CREATE",rejected="false"} 1',
      'apiserver_admission_controller_admission_duration_seconds_count{name="Refuser",type="validate",operation="CREATE",rejected="true"} 1',
    ])
    const buckets = (await lines('apiserver_admission_controller_admission_duration_seconds_bucket')).filter((l) => l.includes('"Mutator"')).map((l) => /le="([^"]+)"/.exec(l)?.[1])
    assert.deepEqual(buckets, ['0.005', '0.025', '0.1', '0.5', '1', '2.5', '+Inf'])
    // An operation no plugin handles is no step at all (the chain's Handles is false).
    await chain.admit(podAttributes({ operation: 'CONNECT' }))
    assert.equal((await lines('apiserver_admission_step_admission_duration_seconds_count')).length, 2)
  })

  // The reference's WithControllerMetrics wraps a plugin once per phase, each with its type.
  it('the chain: a plugin in both phases has a series per phase', async () => {
    const chain = new AdmissionChain([{ name: 'Both', plugin: { handles: handlesOnly('CREATE'), admit: async () => {}, validate: async () => {} } as AdmissionPlugin }], stores.init.metrics)
    const attributes: AdmissionAttributes = podAttributes()
    await chain.admit(attributes)
    await chain.validate(attributes)
    await chain.validate(attributes)
    assert.deepEqual(await lines('apiserver_admission_controller_admission_duration_seconds_count'), [
      'apiserver_admission_controller_admission_duration_seconds_count{name="Both",type="admit",operation="CREATE",rejected="false"} 1',
      'apiserver_admission_controller_admission_duration_seconds_count{name="Both",type="validate",operation="CREATE",rejected="false"} 2',
    ])
  })
})
