/**
 * matchPolicy Equivalent (the reference's generic Webhook.ShouldCallHook and its
 * webhook_test.go TestShouldCallHook cases, on the resources this server serves in several
 * versions or groups): a rule on one version also matches the same objects requested through
 * another — autoscaling/v1 and v2 HorizontalPodAutoscalers, core and events.k8s.io Events, a
 * CRD served at two versions, its `scale` subresource — with the exact match preferred and
 * earlier rules first; the webhook is sent the object converted to its version, with `kind`
 * and `resource` its own and `requestKind`/`requestResource` the request's (request
 * CreateV1AdmissionReview); Exact matches only as requested; an equivalent resource without
 * a kind for the subresource is the reference's internal error; a mutating webhook's patch
 * of the converted object reaches the request's object in the request's version.
 */
import assert from 'node:assert/strict'

import type { AdmissionAttributes } from '../../../../src/server/admission/attributes.js'
import { MutatingAdmissionWebhook } from '../../../../src/server/admission/webhook/mutating.js'
import { ValidatingAdmissionWebhook } from '../../../../src/server/admission/webhook/validating.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { AdmissionWebhookServer } from '../../../support/admission-webhook.js'
import { type TestRegistry, openTestRegistry } from '../../api/support.js'
import { refusal } from '../table-support.js'
import { type FakeStores, configuration, fakeStores } from './support.js'

type Obj = Record<string, any>

const OPEN_SCHEMA = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }
const SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' }

/** widgets.stable.example.com served at v1 (scale only) and v2 (scale and status), conversion None. */
const widgetsCrd: KubeObject = {
  metadata: { name: 'widgets.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: OPEN_SCHEMA, subresources: { scale: SCALE } },
      { name: 'v2', served: true, storage: false, schema: OPEN_SCHEMA, subresources: { scale: SCALE, status: {} } },
    ],
  },
}

const hpaV2 = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
  },
}

const attributesOf = (group: string, version: string, resource: string, kind: string, object: Obj | undefined, subresource = ''): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group, version, kind },
  resource: { group, version, resource },
  subresource,
  namespace: 'default',
  name: object?.metadata?.name ?? 'web',
  ...(object ? { object: structuredClone(object) as KubeObject } : {}),
  dryRun: false,
  userInfo: { name: 'alice', groups: ['system:authenticated'] },
})

const rule = (apiGroups: string[], apiVersions: string[], resources: string[]) => ({ operations: ['*'], apiGroups, apiVersions, resources, scope: '*' })

describe('admission: webhook matchPolicy Equivalent', function () {
  this.timeout(30_000)
  let server: AdmissionWebhookServer
  let t: TestRegistry
  let stores: FakeStores

  before(async () => {
    server = await AdmissionWebhookServer.start()
    t = await openTestRegistry('adm-equivalent-')
    await t.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!.create(structuredClone(widgetsCrd))
  })
  after(async () => {
    await server.close()
    await t.close()
  })
  beforeEach(() => {
    stores = fakeStores()
    // The webhook configurations from the test's lists; every served resource from the real registry.
    const fake = stores.init.stores()!
    const registry = t.registry
    stores.init.stores = () => ({
      store: t.store,
      lookup: (group, version, resource) => (group === 'admissionregistration.k8s.io' ? fake.lookup(group, version, resource) : registry.lookup(group, version, resource)),
      all: () => registry.all(),
      customStores: () => registry.customStores(),
    })
    server.reviews.length = 0
    server.respond = () => ({ allowed: true })
  })

  const hook = (rules: Obj[], matchPolicy?: string) =>
    configuration('equivalent.example.com', { name: 'equivalent.example.com', clientConfig: { url: server.url('/'), caBundle: server.caBundle }, rules, ...(matchPolicy ? { matchPolicy } : {}) })
  /** The request the webhook was sent, or undefined when it was not called. */
  const sent = async (rules: Obj[], matchPolicy: string | undefined, attributes: AdmissionAttributes) => {
    stores.validating = [hook(rules, matchPolicy)]
    server.reviews.length = 0
    await new ValidatingAdmissionWebhook(stores.init).validate(attributes)
    return server.reviews[0]?.request as Obj | undefined
  }
  const hpa = () => attributesOf('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', hpaV2)

  it('no rules: never called', async () => {
    assert.equal(await sent([], 'Equivalent', hpa()), undefined)
  })

  it('a wildcard rule matches as requested', async () => {
    const request = await sent([rule(['*'], ['*'], ['*'])], 'Equivalent', hpa())
    assert.deepEqual([request?.kind, request?.resource], [
      { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
      { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
    ])
  })

  it('specific rules prefer the exact match, whatever their order', async () => {
    const request = await sent([rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers']), rule(['autoscaling'], ['v2'], ['horizontalpodautoscalers'])], 'Equivalent', hpa())
    assert.deepEqual(request?.resource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' })
    assert.equal(request?.object.apiVersion, 'autoscaling/v2')
  })

  it('Exact (and no matchPolicy) misses a rule on another version', async () => {
    assert.equal(await sent([rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])], 'Exact', hpa()), undefined)
    assert.equal(await sent([rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])], undefined, hpa()), undefined)
  })

  it('Equivalent: called through the version of its rule, the object converted, requestKind/requestResource the request', async () => {
    const request = (await sent([rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])], 'Equivalent', hpa()))!
    assert.deepEqual(request.kind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' })
    assert.deepEqual(request.resource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' })
    assert.deepEqual(request.requestKind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' })
    assert.deepEqual(request.requestResource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' })
    assert.equal(request.object.apiVersion, 'autoscaling/v1')
    assert.equal(request.object.spec.targetCPUUtilizationPercentage, 60)
    assert.equal(request.object.spec.metrics, undefined)
  })

  it('Equivalent across groups: core Events seen as events.k8s.io/v1 (message is note)', async () => {
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, reason: 'Started', message: 'started', type: 'Normal' }
    const request = (await sent([rule(['events.k8s.io'], ['v1'], ['events'])], 'Equivalent', attributesOf('', 'v1', 'events', 'Event', event)))!
    assert.deepEqual(request.kind, { group: 'events.k8s.io', version: 'v1', kind: 'Event' })
    assert.deepEqual(request.requestKind, { group: '', version: 'v1', kind: 'Event' })
    assert.equal(request.object.apiVersion, 'events.k8s.io/v1')
    assert.equal(request.object.note, 'started')
  })

  it('a CRD served at two versions; the earlier rule first', async () => {
    const widget = { apiVersion: 'stable.example.com/v2', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 2 } }
    const request = (await sent([rule(['stable.example.com'], ['v1'], ['widgets']), rule(['*'], ['v3'], ['*'])], 'Equivalent', attributesOf('stable.example.com', 'v2', 'widgets', 'Widget', widget)))!
    assert.deepEqual(request.kind, { group: 'stable.example.com', version: 'v1', kind: 'Widget' })
    assert.deepEqual(request.requestResource, { group: 'stable.example.com', version: 'v2', resource: 'widgets' })
    assert.equal(request.object.apiVersion, 'stable.example.com/v1')
    assert.deepEqual(request.object.spec, { replicas: 2 })
  })

  it('the scale subresource: matched through the equivalent resource, its kind autoscaling/v1 Scale', async () => {
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 3 } }
    const attributes = attributesOf('autoscaling', 'v1', 'widgets', 'Scale', scale, 'scale')
    Object.assign(attributes, { resource: { group: 'stable.example.com', version: 'v2', resource: 'widgets' } })
    assert.equal(await sent([rule(['stable.example.com'], ['v1'], ['widgets'])], 'Equivalent', attributes), undefined, 'a rule on the resource alone misses its subresource')
    const request = (await sent([rule(['stable.example.com'], ['v1'], ['widgets/scale'])], 'Equivalent', attributes))!
    assert.deepEqual([request.kind, request.resource, request.subResource], [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }, { group: 'stable.example.com', version: 'v1', resource: 'widgets' }, 'scale'])
    assert.deepEqual([request.requestKind, request.requestResource, request.requestSubResource], [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }, { group: 'stable.example.com', version: 'v2', resource: 'widgets' }, 'scale'])
    assert.equal(await sent([rule(['stable.example.com'], ['v1'], ['widgets/scale'])], 'Exact', attributes), undefined)
  })

  it('an equivalent resource without that subresource: the internal error "unknown kind"', async () => {
    const widget = { apiVersion: 'stable.example.com/v2', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } }
    const attributes = attributesOf('stable.example.com', 'v2', 'widgets', 'Widget', widget, 'status')
    stores.validating = [hook([rule(['stable.example.com'], ['v1'], ['widgets/status'])], 'Equivalent')]
    const got = await refusal(new ValidatingAdmissionWebhook(stores.init).validate(attributes))
    assert.equal(got?.code, 500)
    assert.equal(got?.message, 'Internal error occurred: unable to convert to stable.example.com/v1, Resource=widgets: unknown kind')
  })

  it("a mutating webhook's patch of the converted object reaches the request's object, in the request's version", async () => {
    stores.mutating = [hook([rule(['autoscaling'], ['v1'], ['horizontalpodautoscalers'])], 'Equivalent')]
    server.respond = () => ({ allowed: true, ...AdmissionWebhookServer.patch([{ op: 'replace', path: '/spec/maxReplicas', value: 7 }, { op: 'replace', path: '/spec/targetCPUUtilizationPercentage', value: 80 }]) })
    const attributes = hpa()
    await new MutatingAdmissionWebhook(stores.init).admit(attributes)
    const object = attributes.object as Obj
    assert.equal(object.apiVersion, 'autoscaling/v2')
    assert.equal(object.spec.maxReplicas, 7)
    assert.deepEqual(object.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }])
  })
})
