/**
 * The webhooks' share of a slow request (the reference's MutatingWebhookTracker, a sum: the
 * mutating webhooks are called one after the other; ValidatingWebhookTracker, a maximum: the
 * validating ones are called together), handed to the request's latency trackers when the
 * admission phase is recorded, for its audit annotations.
 */
import assert from 'node:assert/strict'
import { MutatingAdmissionWebhook } from '../../../../src/server/admission/webhook/mutating.js'
import { ValidatingAdmissionWebhook } from '../../../../src/server/admission/webhook/validating.js'
import { admissionRequest } from '../../../../src/server/api/handlers/admission-request.js'
import { LatencyTrackers } from '../../../../src/server/http/latency-trackers.js'
import type { RequestContext, Response } from '../../../../src/server/http/types.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { type FakeStores, configuration, fakeStores, podAttributes } from './support.js'

type Obj = Record<string, any>

describe('admission webhooks: latency for the audit annotations', function () {
  this.timeout(20_000)
  let server: AdmissionWebhookServer
  let stores: FakeStores

  before(async () => {
    server = await AdmissionWebhookServer.start()
    server.respond = () => ({ allowed: true })
    server.delayMs = 150
  })
  after(async () => server.close())
  beforeEach(() => {
    stores = fakeStores()
  })

  const hook = (name: string, path: string, over: Obj = {}) => configuration(name, { name, clientConfig: { url: server.url(path), caBundle: server.caBundle }, ...over })

  it('mutating calls add up; validating calls keep the longest; recording hands them to the request once', async () => {
    stores.mutating = [hook('a.example.com', '/a'), hook('b.example.com', '/b')]
    stores.validating = [hook('c.example.com', '/c'), hook('d.example.com', '/d')]
    const attributes = podAttributes()
    await new MutatingAdmissionWebhook(stores.init).admit(attributes)
    const mutating = attributes.webhookLatency!.mutating
    assert.ok(mutating >= 2 * 145, `two calls of 150 ms add up: ${mutating}`)
    await new ValidatingAdmissionWebhook(stores.init).validate(attributes)
    const validating = attributes.webhookLatency!.validating
    assert.ok(validating >= 145 && validating < mutating, `the longest of two calls made together: ${validating}`)

    const trackers = new LatencyTrackers()
    const ctx = { latencyTrackers: trackers } as unknown as RequestContext
    const request = admissionRequest({ ctx, res: {} as Response }, {})
    request.record!(attributes)
    request.record!(attributes)
    assert.equal(attributes.webhookLatency, undefined)
    const annotations = trackers.annotations()
    assert.deepEqual(Object.keys(annotations), ['apiserver.latency.k8s.io/mutating-webhook', 'apiserver.latency.k8s.io/validating-webhook'])
    assert.match(annotations["apiserver.latency.k8s.io/mutating-webhook"]!, /^\d+(\.\d+)?m?s$/)
  })
})
