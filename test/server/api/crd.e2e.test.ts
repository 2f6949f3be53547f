import assert from 'node:assert/strict'
import type { ApiServer } from '../../support/api-server.js'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { deletedLine, describeEachStoreAndKubectl } from '../../support/kubectl-versions.js'
import { ConversionWebhook } from '../../support/conversion-webhook.js'

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
`

const CT = `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: x
spec:
  cronSpec: "* * * * */5"
  image: my-awesome-cron-image
  replicas: 1
`

describeEachStoreAndKubectl('api: CustomResourceDefinitions and their custom resources with the real kubectl (end to end)', 'crd-e2e', function (store, client) {
  this.timeout(180_000)
  let session: KubectlSession
  let server: ApiServer
  let tmp: string

  before(async function () {
    session = await KubectlSession.open(this, 'api-crd-', { waitFor: 'ready', store, kubectl: client.tool })
    server = session.server
    tmp = session.tmp
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const file = (name: string, text: string) => session.file(name, text)
  const json = (text: string) => JSON.parse(text) as Record<string, any>

  it('apply a CRD, serve its custom resources, delete it', async () => {
    assert.equal(await ok('apply', '-f', file('crd.yaml', CRD)), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n')
    assert.match(await ok('get', 'crd'), /^NAME\s+CREATED AT\ncrontabs\.stable\.example\.com\s+\d{4}-\d\d-\d\dT/m)
    const crd = json(await ok('get', 'crd', 'crontabs.stable.example.com', '-o', 'json'))
    const conditions = Object.fromEntries((crd.status.conditions as Array<{ type: string; status: string }>).map((c) => [c.type, c.status]))
    assert.deepEqual(conditions, { NamesAccepted: 'True', Established: 'True' })
    assert.equal(crd.status.acceptedNames.kind, 'CronTab')
    assert.equal(crd.status.acceptedNames.listKind, 'CronTabList')
    assert.deepEqual(crd.status.storedVersions, ['v1'])

    assert.match(await ok('api-resources'), /^crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab$/m)
    const groups = json((await server.get('/apis')).body)
    assert.ok((groups.groups as Array<{ name: string }>).some((g) => g.name === 'stable.example.com'))
    const resources = json((await server.get('/apis/stable.example.com/v1')).body)
    const names = (resources.resources as Array<{ name: string }>).map((r) => r.name)
    assert.deepEqual(names, ['crontabs', 'crontabs/scale', 'crontabs/status'])
    assert.deepEqual(resources.resources[0].shortNames, ['ct'])
    assert.deepEqual(resources.resources[0].categories, ['all'])

    assert.equal(await ok('create', '-f', file('ct.yaml', CT)), 'crontab.stable.example.com/x created\n')
    assert.match(await ok('get', 'ct'), /^NAME\s+SPEC\s+REPLICAS\s+AGE\nx\s+\* \* \* \* \*\/5\s+1\s+\d+s$/m)
    const yaml = await ok('get', 'ct', 'x', '-o', 'yaml')
    assert.match(yaml, /^apiVersion: stable\.example\.com\/v1$/m)
    assert.match(yaml, /^kind: CronTab$/m)
    assert.match(yaml, /^  cronSpec: '\* \* \* \* \*\/5'$/m)
    assert.match(yaml, /^  generation: 1$/m)

    assert.equal(await ok('patch', 'ct', 'x', '--type', 'merge', '-p', '{"spec":{"image":"other"}}'), 'crontab.stable.example.com/x patched\n')
    assert.equal(await ok('patch', 'ct', 'x', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/cronSpec","value":"0 * * * *"}]'), 'crontab.stable.example.com/x patched\n')
    const strategic = await kubectl('patch', 'ct', 'x', '-p', '{"spec":{"image":"again"}}')
    assert.equal(strategic.code, 1)
    assert.match(
      strategic.stderr,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    )
    const patched = json(await ok('get', 'ct', 'x', '-o', 'json'))
    assert.equal(patched.spec.image, 'other')
    assert.equal(patched.spec.cronSpec, '0 * * * *')
    assert.equal(patched.metadata.generation, 3)

    // The status subresource: only .status changes, the main resource ignores .status.
    assert.equal(await ok('patch', 'ct', 'x', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"replicas":2,"selector":"app=x"}}'), 'crontab.stable.example.com/x patched\n')
    const withStatus = json(await ok('get', 'ct', 'x', '-o', 'json'))
    assert.deepEqual(withStatus.status, { replicas: 2, selector: 'app=x' })
    assert.equal(withStatus.metadata.generation, 3)
    // The scale subresource at the CRD's paths.
    const scale = json(await ok('get', '--raw', '/apis/stable.example.com/v1/namespaces/default/crontabs/x/scale'))
    assert.deepEqual([scale.kind, scale.spec, scale.status], ['Scale', { replicas: 1 }, { replicas: 2, selector: 'app=x' }])
    assert.equal(await ok('scale', 'ct', 'x', '--replicas', '4'), 'crontab.stable.example.com/x scaled\n')
    assert.equal(json(await ok('get', 'ct', 'x', '-o', 'json')).spec.replicas, 4)

    // Objects of the wrong group version or kind.
    const wrongVersion = await server.get(
      '/apis/stable.example.com/v1/namespaces/default/crontabs',
      { 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'y' } }),
    )
    assert.equal(wrongVersion.status, 400)
    assert.equal(json(wrongVersion.body).message, 'the API version in the data (stable.example.com/v2) does not match the expected API version (stable.example.com/v1)')

    const wrongKind = await server.get(
      '/apis/stable.example.com/v1/namespaces/default/crontabs',
      { 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'Other', metadata: { name: 'y' } }),
    )
    assert.equal(wrongKind.status, 422)
    assert.equal(json(wrongKind.body).message, 'CronTab.stable.example.com "y" is invalid: kind: Invalid value: "Other": must be CronTab')

    // Watch from the start: the existing object is ADDED.
    const watched = await server.get('/apis/stable.example.com/v1/namespaces/default/crontabs?watch=1&timeoutSeconds=1')
    assert.equal(watched.status, 200)
    const events = watched.body.trim().split('\n').map((l) => json(l))
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'x']])

    const list = json((await server.get('/apis/stable.example.com/v1/crontabs')).body)
    assert.equal(list.kind, 'CronTabList')
    assert.deepEqual((list.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name), ['x'])

    assert.equal(await ok('delete', 'ct', 'x'), deletedLine(client, 'crontab.stable.example.com "x"', 'default'))
    // deletecollection.
    await ok('create', '-f', file('ct2.yaml', CT.replace('name: x', 'name: z2')))
    const deleted = await server.get('/apis/stable.example.com/v1/namespaces/default/crontabs', {}, 'DELETE')
    assert.equal(deleted.status, 200)
    assert.equal(json(deleted.body).kind, 'CronTabList')
    assert.match(await kubectl('get', 'ct').then((r) => r.stderr), /No resources found in default namespace/)
    assert.equal(await ok('create', '-f', file('ct.yaml', CT)), 'crontab.stable.example.com/x created\n')
    assert.equal(await ok('delete', 'crd', 'crontabs.stable.example.com'), 'customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted\n')
    assert.equal((await server.get('/apis/stable.example.com/v1')).status, 404)
    assert.doesNotMatch(await ok('api-resources'), /crontabs/)
    // Its objects went with it: a new CRD of the same names starts empty.
    await ok('apply', '-f', file('crd.yaml', CRD))
    assert.equal((await kubectl('get', 'ct', 'x')).code, 1)
    await ok('delete', 'crd', 'crontabs.stable.example.com')
  })

  it('kubectl wait for Established; deletion keeps the CRD Terminating until its objects are gone', async () => {
    await ok('apply', '-f', file('crd.yaml', CRD))
    assert.equal(await ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com'), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met\n')
    await ok('create', '-f', file('held.yaml', CT.replace('name: x', 'name: held\n  finalizers: [example.com/hold]')))
    assert.equal(await ok('delete', 'crd', 'crontabs.stable.example.com', '--wait=false'), 'customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted\n')
    const crd = json(await ok('get', 'crd', 'crontabs.stable.example.com', '-o', 'json'))
    assert.deepEqual(crd.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io'])
    assert.equal(crd.status.conditions.find((c: { type: string }) => c.type === 'Terminating').status, 'True')
    const refused = await kubectl('create', '-f', file('ct3.yaml', CT.replace('name: x', 'name: late')))
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /Error from server \(MethodNotAllowed\): error when creating ".*ct3\.yaml": create not allowed while custom resource definition is terminating/)
    assert.ok(json(await ok('get', 'ct', 'held', '-o', 'json')).metadata.deletionTimestamp)
    await ok('patch', 'ct', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}')
    await ok('wait', '--for=delete', '--timeout=30s', 'crd/crontabs.stable.example.com')
    assert.equal((await server.get('/apis/stable.example.com/v1')).status, 404)
  })

  it('converts between served versions with a conversion webhook', async () => {
    const webhook = await ConversionWebhook.start()
    try {
      const twoVersions = CRD.replace(
        /  versions:\n  - name: v1\n    served: true\n    storage: true\n/,
        '  versions:\n  - name: v2\n    served: true\n    storage: false\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n  - name: v1\n    served: true\n    storage: true\n',
      ) + `  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig:\n        url: ${webhook.url}\n        caBundle: ${webhook.caBundle}\n`
      await ok('apply', '-f', file('crd-webhook.yaml', twoVersions))
      await ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/crontabs.stable.example.com')
      assert.equal(await ok('create', '-f', file('ct-v1.yaml', CT.replace('name: x', 'name: conv'))), 'crontab.stable.example.com/conv created\n')
      // kubectl's preferred version is the first listed (v2): the webhook turns cronSpec into schedule.
      const v2 = json(await ok('get', 'crontabs.v2.stable.example.com', 'conv', '-o', 'json'))
      assert.equal(v2.apiVersion, 'stable.example.com/v2')
      assert.equal(v2.spec.schedule, '* * * * */5')
      assert.equal(v2.spec.cronSpec, undefined)
      const v1 = json(await ok('get', 'crontabs.v1.stable.example.com', 'conv', '-o', 'json'))
      assert.equal(v1.spec.cronSpec, '* * * * */5')
      assert.ok(webhook.reviews.some((r) => r.request.desiredAPIVersion === 'stable.example.com/v2'))
      webhook.misbehave = 'failure'
      const failed = await kubectl('get', 'crontabs.v2.stable.example.com', 'conv')
      assert.equal(failed.code, 1)
      assert.match(failed.stderr, /Error from server \(InternalError\): Internal error occurred: conversion webhook for stable\.example\.com\/v1, Kind=CronTab failed: cannot convert that/)
      webhook.misbehave = undefined
      await ok('delete', 'crd', 'crontabs.stable.example.com')
    } finally {
      await webhook.close()
    }
  })

  it('rejects an invalid CRD with the reference messages', async () => {
    const bad = CRD.replace('name: crontabs.stable.example.com', 'name: wrong.stable.example.com').replace('scope: Namespaced', 'scope: Everywhere')
    const r = await kubectl('create', '-f', file('bad-crd.yaml', bad))
    assert.equal(r.code, 1)
    assert.match(r.stderr, /The CustomResourceDefinition "wrong\.stable\.example\.com" is invalid: /)
    assert.match(r.stderr, /spec\.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"/)
    assert.match(r.stderr, /metadata\.name: Invalid value: "wrong\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/)
  })
})
