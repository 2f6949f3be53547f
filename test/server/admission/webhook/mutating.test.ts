/**
 * The MutatingAdmissionWebhook plugin against a real HTTPS webhook on 127.0.0.1: JSONPatch
 * answers applied to the object, the webhooks in order seeing the patched object, the
 * reinvocation of IfNeeded webhooks once a later one changed the object (the reference's
 * reinvocation rules), and the dispatcher's patch errors.
 */
import assert from 'node:assert/strict'

import { MutatingAdmissionWebhook } from '../../../../src/server/admission/webhook/mutating.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { refusal } from '../table-support.js'
import { type FakeStores, configuration, fakeStores, podAttributes } from './support.js'

type Obj = Record<string, any>

describe('admission: MutatingAdmissionWebhook', function () {
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
  })

  const hook = (name: string, path: string, over: Obj = {}) => configuration(name, { name, clientConfig: { url: server.url(path), caBundle: server.caBundle }, ...over })
  const plugin = () => new MutatingAdmissionWebhook(stores.init)

  it("applies a JSONPatch answer to the request's object", async () => {
    stores.mutating = [hook('label.example.com', '/label')]
    server.respond = () => ({ allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }]) })
    const attributes = podAttributes()
    await plugin().admit(attributes)
    assert.deepEqual(attributes.object?.metadata.labels, { app: 'web', patched: 'yes' })
    assert.deepEqual(attributes.annotations, {
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"label.example.com","webhook":"label.example.com","mutated":true}',
    })
  })

  // The reference's dispatcher names a webhook by its index among all the configurations' webhooks
  // (`for i, hook := range hooks`), those whose rules skip the request counted.
  it('names a webhook in its annotation by its index among all webhooks, those whose rules skip the request counted', async () => {
    const secrets = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'], scope: '*' }]
    stores.mutating = [hook('a-secrets', '/secrets', { rules: secrets }), hook('b-pods', '/pods')]
    const attributes = podAttributes()
    await plugin().admit(attributes)
    assert.deepEqual(
      server.reviews.map((r) => r.path.split('?')[0]),
      ['/pods'],
    )
    assert.deepEqual(attributes.annotations, {
      'mutation.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"b-pods","webhook":"b-pods","mutated":false}',
    })
  })

  it('calls the webhooks in order (configurations by name), each seeing the object as patched before it', async () => {
    stores.mutating = [hook('b-second', '/second'), hook('a-first', '/first')]
    server.respond = (_review, path) =>
      path.startsWith('/first') ? { allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels/first', value: '1' }]) } : { allowed: true }
    await plugin().admit(podAttributes())
    assert.deepEqual(
      server.reviews.map((r) => r.path.split('?')[0]),
      ['/first', '/second'],
    )
    assert.equal(server.reviews[1]!.request.object.metadata.labels.first, '1')
  })

  it('calls an IfNeeded webhook once more when a later webhook changed the object; a Never one is not', async () => {
    stores.mutating = [hook('a-ifneeded', '/a', { reinvocationPolicy: 'IfNeeded' }), hook('b-never', '/b', { reinvocationPolicy: 'Never' }), hook('c-changes', '/c')]
    server.respond = (review, path) =>
      path.startsWith('/c') && review.request.object.metadata.labels.c === undefined
        ? { allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels/c', value: 'x' }]) }
        : { allowed: true }
    const attributes = podAttributes()
    await plugin().admit(attributes)
    assert.deepEqual(
      server.reviews.map((r) => r.path.split('?')[0]),
      ['/a', '/b', '/c', '/a'],
    )
    // The second round's call of the first webhook is annotated as such.
    assert.equal(attributes.annotations?.['mutation.webhook.admission.k8s.io/round_1_index_0'], '{"configuration":"a-ifneeded","webhook":"a-ifneeded","mutated":false}')
    server.reviews.length = 0
    stores.mutating = [hook('a-ifneeded', '/a', { reinvocationPolicy: 'IfNeeded' }), hook('b-never', '/b')]
    await plugin().admit(podAttributes())
    assert.equal(server.reviews.length, 2, 'no change, no second round')
  })

  it('refuses a patch on an operation without an object', async () => {
    stores.mutating = [hook('bad.example.com', '/bad', { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })]
    server.respond = () => ({ allowed: true, ...AdmissionWebhookServer.patch([{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }]) })
    const { object: _drop, ...withoutObject } = podAttributes({ operation: 'DELETE', oldObject: podAttributes().object })
    assert.deepEqual(await refusal(plugin().admit(withoutObject)), {
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: admission webhook "bad.example.com" attempted to modify the object, which is not supported for this operation',
    })
  })

  it('a denial from a mutating webhook refuses as a validating one does', async () => {
    stores.mutating = [hook('no.example.com', '/no')]
    server.respond = () => ({ allowed: false, status: { code: 403, message: 'not here' } })
    const got = await refusal(plugin().admit(podAttributes()))
    assert.equal(got?.code, 403)
    assert.equal(got?.message, 'admission webhook "no.example.com" denied the request: not here')
  })
})
