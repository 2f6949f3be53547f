/**
 * The ValidatingAdmissionWebhook plugin against a real HTTPS webhook on 127.0.0.1: the
 * reference's denial (webhook/errors ToStatusErr), failurePolicy both ways with Go's transport
 * words, the request's AdmissionReview fields, warnings, audit annotations, the dry-run rule and
 * the answer checks of request.VerifyAdmissionResponse (its admissionreview_test.go messages).
 */
import assert from 'node:assert/strict'

import { ValidatingAdmissionWebhook } from '../../../../src/server/admission/webhook/validating.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { refusal } from '../table-support.js'
import { type FakeStores, assertIncludes, configuration, fakeStores, podAttributes } from './support.js'

type Obj = Record<string, any>

describe('admission: ValidatingAdmissionWebhook', function () {
  this.timeout(20_000)
  let server: AdmissionWebhookServer
  let stores: FakeStores

  before(async () => {
    server = await AdmissionWebhookServer.start()
  })
  after(async () => server.close())
  beforeEach(() => {
    stores = fakeStores()
    server.reviews.length = 0
    server.respond = () => ({ allowed: true })
    server.rawAnswer = undefined
    server.delayMs = 0
  })

  const hook = (name: string, over: Obj = {}) => configuration(name, { name, clientConfig: { url: server.url('/validate'), caBundle: server.caBundle }, ...over })
  const plugin = () => new ValidatingAdmissionWebhook(stores.init)

  it('denies with the webhook message, 400 when the webhook gives no code', async () => {
    stores.validating = [hook('deny.example.com')]
    server.respond = () => ({ allowed: false, status: { message: 'pods named web are not welcome' } })
    const got = await refusal(plugin().validate(podAttributes()))
    assertIncludes(got, { code: 400, message: 'admission webhook "deny.example.com" denied the request: pods named web are not welcome' })
  })

  it("keeps the webhook's code and reason; without a message its reason, without either 'without explanation'", async () => {
    stores.validating = [hook('deny.example.com')]
    server.respond = () => ({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no' } })
    assertIncludes(await refusal(plugin().validate(podAttributes())), { code: 403, reason: 'Forbidden', message: 'admission webhook "deny.example.com" denied the request: no' })
    server.respond = () => ({ allowed: false, status: { reason: 'NotToday' } })
    assert.equal((await refusal(plugin().validate(podAttributes())))?.message, 'admission webhook "deny.example.com" denied the request: NotToday')
    server.respond = () => ({ allowed: false })
    assert.equal((await refusal(plugin().validate(podAttributes())))?.message, 'admission webhook "deny.example.com" denied the request without explanation')
  })

  it('sends an admission.k8s.io/v1 AdmissionReview with the request fields, at the URL with ?timeout=', async () => {
    stores.validating = [hook('look.example.com', { timeoutSeconds: 7 })]
    await plugin().validate(podAttributes())
    assert.equal((server.reviews)?.length, 1)
    const review = server.reviews[0]!
    assert.equal(review.path, '/validate?timeout=7s')
    assert.equal(review.apiVersion, 'admission.k8s.io/v1')
    assert.equal(review.kind, 'AdmissionReview')
    const request = review.request as Obj
    assert.match(request.uid, /^[0-9a-f-]{36}$/)
    assertIncludes(request, {
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'web',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
      oldObject: null,
      dryRun: false,
      options: { fieldManager: 'kubectl-client-side-apply', kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    })
    assert.equal(request.object.metadata.name, 'web')
  })

  it('records warnings and the audit annotations as <webhook>/<key>', async () => {
    stores.validating = [hook('warn.example.com')]
    server.respond = () => ({ allowed: true, warnings: ['careful now'], auditAnnotations: { checked: 'yes' } })
    const attributes = podAttributes()
    await plugin().validate(attributes)
    assert.deepEqual(attributes.warnings, ['careful now'])
    assert.deepEqual(attributes.annotations, { 'warn.example.com/checked': 'yes' })
  })

  it('failurePolicy Fail refuses an unreachable webhook as an internal error; Ignore admits', async () => {
    const down = await AdmissionWebhookServer.start()
    const url = down.url('/validate')
    await down.close()
    stores.validating = [configuration('down', { name: 'down.example.com', clientConfig: { url, caBundle: down.caBundle } })]
    const got = await refusal(plugin().validate(podAttributes()))
    assertIncludes(got, {
      code: 500,
      reason: 'InternalError',
      message: `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:${down.port}/validate?timeout=10s": dial tcp 127.0.0.1:${down.port}: connect: connection refused`,
    })
    stores.validating = [configuration('down', { name: 'down.example.com', failurePolicy: 'Ignore', clientConfig: { url, caBundle: down.caBundle } })]
    const attributes = podAttributes()
    assert.equal(await refusal(plugin().validate(attributes)), undefined)
    assert.deepEqual(attributes.annotations, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_0': 'down.example.com' })
  })

  it('a caBundle that does not sign the serving certificate is a call failure', async () => {
    const other = await AdmissionWebhookServer.start()
    await other.close()
    stores.validating = [hook('tls.example.com', { clientConfig: { url: server.url('/validate'), caBundle: other.caBundle } })]
    assert.equal((await refusal(plugin().validate(podAttributes())))?.message, 
      `Internal error occurred: failed calling webhook "tls.example.com": failed to call webhook: Post "https://127.0.0.1:${server.port}/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    )
  })

  it("checks the answer: the request's uid, the review's kind, no patch from a validating webhook", async () => {
    stores.validating = [hook('bad.example.com')]
    server.respond = () => ({ uid: 'someone-else', allowed: true })
    const uid = async () => {
      const message = (await refusal(plugin().validate(podAttributes())))?.message ?? ''
      return message
    }
    assert.match(await uid(), /^Internal error occurred: failed calling webhook "bad.example.com": received invalid webhook response: expected response.uid="[0-9a-f-]{36}", got "someone-else"$/)
    server.respond = () => ({ allowed: true })
    server.rawAnswer = (review) => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } })
    assert.equal(await uid(), 'Internal error occurred: failed calling webhook "bad.example.com": received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview')
    server.rawAnswer = () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })
    assert.equal(await uid(), 'Internal error occurred: failed calling webhook "bad.example.com": received invalid webhook response: webhook response was absent')
    server.rawAnswer = undefined
    server.respond = () => ({ allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/x', value: 1 }]) })
    assert.equal(await uid(), 'Internal error occurred: failed calling webhook "bad.example.com": received invalid webhook response: validating webhook may not return response.patch')
  })

  it('a dry run reaches only webhooks without side effects', async () => {
    stores.validating = [hook('effects.example.com', { sideEffects: 'Some' })]
    assertIncludes(await refusal(plugin().validate(podAttributes({ dryRun: true }))), { code: 400, message: 'admission webhook "effects.example.com" does not support dry run' })
    assert.equal((server.reviews)?.length, 0)
    stores.validating = [hook('clean.example.com', { sideEffects: 'NoneOnDryRun' })]
    await plugin().validate(podAttributes({ dryRun: true }))
    assert.equal(server.reviews[0]?.request.dryRun, true)
  })

  it('is called only where its rules and selectors match, never for the webhook configurations themselves', async () => {
    server.respond = () => ({ allowed: false, status: { message: 'no' } })
    const denies = async (webhook: Obj, attributes = podAttributes()) => {
      stores.validating = [hook('sel.example.com', webhook)]
      return (await refusal(plugin().validate(attributes))) !== undefined
    }
    stores.namespaces = [{ metadata: { name: 'default', labels: { team: 'a' } } }]
    assert.equal(await denies({ namespaceSelector: { matchLabels: { team: 'a' } } }), true)
    assert.equal(await denies({ namespaceSelector: { matchLabels: { team: 'b' } } }), false)
    assert.equal(await denies({ objectSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } }), true)
    assert.equal(await denies({ objectSelector: { matchLabels: { app: 'db' } } }), false)
    assert.equal(await denies({ rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }), false)
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }), false)
    const status = podAttributes({ operation: 'UPDATE', subresource: 'status' })
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }, status), false)
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*'] }] }, status), true)
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/status'] }] }, status), true)
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: 'Namespaced' }] }, status), true)
    const configuration = podAttributes({
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' },
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
      namespace: '',
    })
    assert.equal(await denies({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }, configuration), false)
  })
  it('matchConditions: a false one skips the webhook, all true call it; an error refuses under Fail and skips under Ignore', async () => {
    server.respond = () => ({ allowed: false, status: { message: 'no' } })
    const denies = async (webhook: Obj) => {
      stores.validating = [hook('cond.example.com', webhook)]
      return refusal(plugin().validate(podAttributes()))
    }
    assert.equal(await denies({ matchConditions: [{ name: 'is-web', expression: "object.metadata.labels.app == 'web'" }, { name: 'by-alice', expression: "request.userInfo.username == 'alice'" }] }).then((r) => r?.code), 400)
    assert.equal(await denies({ matchConditions: [{ name: 'not-alice', expression: "request.userInfo.username != 'alice'" }] }), undefined)
    const missing = { matchConditions: [{ name: 'missing', expression: "object.metadata.annotations['x'] == 'y'" }] }
    const failed = await denies(missing)
    // generic/webhook.go ShouldCallHook: apierrors.NewForbidden(resource, name, the matcher's error).
    assert.equal(failed?.code, 403)
    assert.match(failed?.message ?? '', /^pods "web" is forbidden: expression 'object\.metadata\.annotations\['x'\] == 'y'' resulted in error: /)
    assert.equal(await denies({ ...missing, failurePolicy: 'Ignore' }), undefined)
  })
  it('reaches a service reference at its cluster IP and port, checking the certificate for <service>.<namespace>.svc', async () => {
    stores.services = [{ metadata: { name: 'webhook', namespace: 'default' }, spec: { type: 'ClusterIP', clusterIP: '127.0.0.1', ports: [{ port: server.port }] } }]
    stores.validating = [hook('svc.example.com', { clientConfig: { service: { namespace: 'default', name: 'webhook', port: server.port, path: '/by-service' }, caBundle: server.caBundle } })]
    await plugin().validate(podAttributes())
    assert.equal(server.reviews[0]?.path, '/by-service?timeout=10s')
    stores.validating = [hook('svc.example.com', { clientConfig: { service: { namespace: 'default', name: 'absent', port: 443 }, caBundle: server.caBundle } })]
    assert.equal((await refusal(plugin().validate(podAttributes())))?.message, 'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://absent.default.svc:443/?timeout=10s": service "absent" not found')
  })
  it('a webhook slower than its timeoutSeconds is a call failure', async () => {
    stores.validating = [hook('slow.example.com', { timeoutSeconds: 1 })]
    server.delayMs = 1500
    assert.equal(
      (await refusal(plugin().validate(podAttributes())))?.message,
      `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${server.port}/validate?timeout=1s": context deadline exceeded`,
    )
  })
  it('sends admission.k8s.io/v1beta1 to a webhook that accepts only that, and refuses one that accepts neither', async () => {
    stores.validating = [hook('beta.example.com', { admissionReviewVersions: ['v1beta1'] })]
    server.respond = () => ({ allowed: false, status: { message: 'beta says no' } })
    assert.equal((await refusal(plugin().validate(podAttributes())))?.message, 'admission webhook "beta.example.com" denied the request: beta says no')
    assert.equal(server.reviews[0]?.apiVersion, 'admission.k8s.io/v1beta1')
    stores.validating = [hook('future.example.com', { admissionReviewVersions: ['v2'] })]
    assert.equal(
      (await refusal(plugin().validate(podAttributes())))?.message,
      'Internal error occurred: failed calling webhook "future.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
    )
  })
})
