import assert from 'node:assert/strict'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { ApiError } from '../../../../src/server/api/status-errors.js'
import { ConversionWebhook } from '../../../support/conversion-webhook.js'
import { type TestRegistry, openTestRegistry } from '../support.js'

function crd(clientConfig: Record<string, unknown>, reviewVersions = ['v1']): KubeObject {
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }
  return {
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', kind: 'CronTab' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: reviewVersions, clientConfig } },
    },
  }
}

const internal = (message: string | RegExp) => (err: unknown) =>
  err instanceof ApiError && err.code === 500 && (typeof message === 'string' ? err.message === `Internal error occurred: ${message}` : message.test(err.message))

describe('controllers: custom resource conversion by webhook', function () {
  this.timeout(30_000)
  let t: TestRegistry
  let webhook: ConversionWebhook

  before(async () => {
    webhook = await ConversionWebhook.start()
  })
  after(async () => {
    await webhook?.close()
  })
  beforeEach(async () => {
    t = await openTestRegistry('crd-conversion-')
    webhook.reviews.length = 0
    webhook.misbehave = undefined
  })
  afterEach(async () => {
    await t.close()
  })

  const crds = () => t.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!
  const version = async (v: string) => (await t.registry.resolve('stable.example.com', v, 'crontabs'))!

  it('stores in the storage version and serves each version through the webhook (ConversionReview v1, caBundle, url)', async () => {
    const created = await crds().create(crd({ url: webhook.url, caBundle: webhook.caBundle }))
    assert.deepEqual((created.spec as { conversion: { strategy: string } }).conversion.strategy, 'Webhook')
    const v2 = await version('v2')
    const v1 = await version('v1')
    // Written through v2: converted to v1 (storage), then back for the answer.
    const answer = await v2.create({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'c', namespace: 'default' }, spec: { schedule: '*/5 * * * *' } })
    assert.equal(answer.apiVersion, 'stable.example.com/v2')
    assert.deepEqual(answer.spec, { schedule: '*/5 * * * *' })
    const raw = JSON.parse((await t.store.get('/stable.example.com/crontabs/default/c'))!.value.toString('utf8'))
    assert.equal(raw.apiVersion, 'stable.example.com/v1')
    assert.deepEqual(raw.spec, { cronSpec: '*/5 * * * *' })
    const review = webhook.reviews[0]!
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1')
    assert.equal(review.kind, 'ConversionReview')
    assert.equal(review.request.desiredAPIVersion, 'stable.example.com/v1')
    assert.match(review.request.uid, /^[0-9a-f-]{36}$/)
    assert.equal(review.path, '/convert')
    // Read in the storage version: no webhook call; in v2: one, labels from the webhook kept.
    const before = webhook.reviews.length
    assert.deepEqual((await v1.get('default', 'c')).spec, { cronSpec: '*/5 * * * *' })
    assert.equal(webhook.reviews.length, before)
    const read = await v2.get('default', 'c')
    assert.deepEqual(read.spec, { schedule: '*/5 * * * *' })
    assert.equal(read.metadata.labels?.converted, 'yes')
    assert.equal(read.metadata.resourceVersion, answer.metadata.resourceVersion)
    // A list is one review with every object.
    await v1.create({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'd', namespace: 'default' }, spec: { cronSpec: '1 * * * *' } })
    const count = webhook.reviews.length
    const list = await v2.list({ namespace: 'default' })
    assert.deepEqual(
      list.items.map((o) => [o.metadata.name, o.apiVersion, (o.spec as { schedule: string }).schedule]),
      [
        ['c', 'stable.example.com/v2', '*/5 * * * *'],
        ['d', 'stable.example.com/v2', '1 * * * *'],
      ],
    )
    assert.equal(webhook.reviews.length, count + 1)
    assert.equal(webhook.reviews.at(-1)!.request.objects.length, 2)
  })

  it('speaks ConversionReview v1beta1 when the CRD asks for it first, and reaches a service by its name', async () => {
    // An ExternalName service to localhost: the reference's resolver dials it with the server name converter.default.svc.
    await t.registry.lookup('', 'v1', 'services')!.create({ metadata: { name: 'converter', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'localhost' } })
    await crds().create(crd({ service: { namespace: 'default', name: 'converter', path: '/convert', port: webhook.port }, caBundle: webhook.caBundle }, ['v1beta1', 'v1']))
    const v2 = await version('v2')
    await v2.create({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'c', namespace: 'default' }, spec: { schedule: 'x' } })
    assert.equal(webhook.reviews[0]!.apiVersion, 'apiextensions.k8s.io/v1beta1')
  })

  it('answers the reference errors (500) when the webhook is unreachable, untrusted or wrong', async () => {
    await crds().create(crd({ url: webhook.url, caBundle: webhook.caBundle }))
    const v1 = await version('v1')
    const v2 = await version('v2')
    await v1.create({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c', namespace: 'default' }, spec: { cronSpec: 'x' } })
    const cases: Array<[Exclude<typeof webhook.misbehave, undefined>, string | RegExp]> = [
      ['wrong-uid', /^Internal error occurred: conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: expected response\.uid="[0-9a-f-]{36}", got "someone-else"$/],
      ['failure', 'conversion webhook for stable.example.com/v1, Kind=CronTab failed: cannot convert that'],
      ['too-few', 'conversion webhook for stable.example.com/v1, Kind=CronTab returned 0 objects, expected 1'],
      ['wrong-version', 'conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v9)'],
      ['http-500', 'conversion webhook for stable.example.com/v1, Kind=CronTab failed: the server responded with the status code 500 but did not return more information'],
    ]
    for (const [misbehaviour, message] of cases) {
      webhook.misbehave = misbehaviour
      await assert.rejects(v2.get('default', 'c'), internal(message), misbehaviour)
    }
    webhook.misbehave = undefined
    // Nothing half-written: a failed conversion on create stores nothing.
    webhook.misbehave = 'failure'
    await assert.rejects(v2.create({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'n', namespace: 'default' }, spec: {} }), internal(/cannot convert that/))
    assert.ok(!(await t.store.get('/stable.example.com/crontabs/default/n')))
    webhook.misbehave = undefined
    // A CA that did not sign the webhook's certificate.
    await crds().update(undefined, 'crontabs.stable.example.com', (o) => {
      const spec = o.spec as { conversion: { webhook: { clientConfig: Record<string, unknown> } } }
      spec.conversion.webhook.clientConfig = { url: webhook.url, caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n').toString('base64') }
      return o
    })
    await assert.rejects((await version('v2')).get('default', 'c'), internal(/^Internal error occurred: conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert": tls: failed to verify certificate: x509: certificate signed by unknown authority$/))
    // Nobody listening.
    await crds().update(undefined, 'crontabs.stable.example.com', (o) => {
      const spec = o.spec as { conversion: { webhook: { clientConfig: Record<string, unknown> } } }
      spec.conversion.webhook.clientConfig = { url: 'https://127.0.0.1:1/convert' }
      return o
    })
    await assert.rejects((await version('v2')).get('default', 'c'), internal('conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "https://127.0.0.1:1/convert": dial tcp 127.0.0.1:1: connect: connection refused'))
  })
})
