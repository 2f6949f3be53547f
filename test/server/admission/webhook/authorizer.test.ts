/**
 * The `authorizer` variable of a webhook's matchConditions (the reference's cel/library/authz.go
 * through the matchconditions matcher): the questions reach the server's authorizer as the
 * requester (or the named service account), a resource check asks about any version (`*`),
 * `authorizer.requestResource` is the request's own resource, and an authorizer that answers
 * later (a webhook authorizer) is awaited.
 */
import assert from 'node:assert/strict'

import { ValidatingAdmissionWebhook } from '../../../../src/server/admission/webhook/validating.js'
import type { Attributes, Decision } from '../../../../src/server/authorization/authorizer.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { refusal } from '../table-support.js'
import { type FakeStores, configuration, fakeStores, podAttributes } from './support.js'

describe('admission: the authorizer in webhook matchConditions', function () {
  this.timeout(20_000)
  let server: AdmissionWebhookServer
  let stores: FakeStores
  let asked: Attributes[]
  let answer: (a: Attributes) => Decision | Promise<Decision>

  before(async () => {
    server = await AdmissionWebhookServer.start()
    server.respond = () => ({ allowed: false, status: { message: 'called' } })
  })
  after(async () => server.close())
  beforeEach(() => {
    stores = fakeStores()
    asked = []
    answer = () => ({ decision: 'allow' })
    stores.init.authorizer = { authorize: (a) => (asked.push(a), answer(a)) }
  })

  /** Whether the webhook (which always denies) was called under the one condition `expression`. */
  const called = async (expression: string, over: Record<string, unknown> = {}) => {
    stores.validating = [configuration('authz.example.com', { name: 'authz.example.com', clientConfig: { url: server.url('/'), caBundle: server.caBundle }, matchConditions: [{ name: 'c', expression }], ...over })]
    const got = await refusal(new ValidatingAdmissionWebhook(stores.init).validate(podAttributes()))
    return got?.message === 'admission webhook "authz.example.com" denied the request: called'
  }

  it('authorizer.requestResource asks about the request itself, as the requester, for any version', async () => {
    assert.equal(await called("authorizer.requestResource.check('create').allowed()"), true)
    assert.deepEqual(asked, [
      { user: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] }, verb: 'create', resourceRequest: true, path: '', apiGroup: '', apiVersion: '*', resource: 'pods', subresource: '', namespace: 'default', name: 'web' },
    ])
    answer = () => ({ decision: 'noOpinion' })
    assert.equal(await called("authorizer.requestResource.check('create').allowed()"), false, 'no opinion is not allowed')
  })

  it('group/resource/subresource/namespace/name, and a path check', async () => {
    assert.equal(await called("authorizer.group('apps').resource('deployments').subresource('scale').namespace('prod').name('web').check('update').allowed()"), true)
    assert.equal(await called("authorizer.path('/healthz').check('get').allowed()"), true)
    assert.deepEqual(
      asked.map(({ verb, resourceRequest, path, apiGroup, apiVersion, resource, subresource, namespace, name }) => ({ verb, resourceRequest, path, apiGroup, apiVersion, resource, subresource, namespace, name })),
      [
        { verb: 'update', resourceRequest: true, path: '', apiGroup: 'apps', apiVersion: '*', resource: 'deployments', subresource: 'scale', namespace: 'prod', name: 'web' },
        { verb: 'get', resourceRequest: false, path: '/healthz', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' },
      ],
    )
  })

  it('serviceAccount(ns, name) asks as system:serviceaccount:<ns>:<name> with its groups', async () => {
    answer = (a) => (a.user.name === 'system:serviceaccount:ci:builder' ? { decision: 'allow' } : { decision: 'deny', reason: 'not the builder' })
    assert.equal(await called("authorizer.serviceAccount('ci', 'builder').group('').resource('pods').check('create').allowed()"), true)
    assert.deepEqual(asked[0]?.user, { name: 'system:serviceaccount:ci:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'] })
    assert.equal(await called("authorizer.requestResource.check('create').reason() == 'not the builder'"), true)
  })

  it("a decision's error: errored() and error()", async () => {
    answer = () => ({ decision: 'noOpinion', error: 'webhook authorizer unreachable' })
    assert.equal(await called("authorizer.requestResource.check('get').errored() && authorizer.requestResource.check('get').error() == 'webhook authorizer unreachable'"), true)
    answer = () => ({ decision: 'allow' })
    assert.equal(await called("!authorizer.requestResource.check('get').errored() && authorizer.requestResource.check('get').error() == ''"), true)
  })

  it('an authorizer that answers asynchronously is awaited', async () => {
    answer = async (a) => {
      await new Promise((r) => setTimeout(r, 5))
      return { decision: a.verb === 'delete' ? 'allow' : 'deny' }
    }
    assert.equal(await called("authorizer.requestResource.check('delete').allowed()"), true)
    assert.equal(await called("authorizer.requestResource.check('create').allowed()"), false)
  })
})
