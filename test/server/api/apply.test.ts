/**
 * Server-side apply over HTTP against the built server: the PatchOptions checks, create and
 * update through apply, the 409 Conflict Status, status subresource and custom resources, and
 * the managers recorded for plain writes (fieldManager, else the User-Agent).
 */
import assert from 'node:assert/strict'
import { ApiServer, type Reply } from '../../support/api-server.js'

const APPLY = 'application/apply-patch+yaml'
const CM = '/api/v1/namespaces/default/configmaps'

describe('api: server-side apply over HTTP', function () {
  this.timeout(60_000)
  let server: ApiServer

  before(async () => {
    server = await ApiServer.start({ waitFor: 'ready' })
  })
  after(async () => {
    await server?.stop()
  })

  const send = (method: string, path: string, body: unknown, type = APPLY, headers: Record<string, string> = {}): Promise<Reply> =>
    server.get(path, { 'Content-Type': type, ...headers }, method, typeof body === 'string' ? body : JSON.stringify(body))
  const json = (r: Reply) => JSON.parse(r.body) as Record<string, any>
  const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })

  it('apply needs a fieldManager; force is only for apply (PatchOptions validation)', async () => {
    const r = await send('PATCH', `${CM}/a`, cm('a', { x: '1' }))
    assert.equal(r.status, 422)
    assert.deepEqual(json(r).message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
    assert.deepEqual(json(r).details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }])
    const merge = await send('PATCH', `${CM}/a?force=true`, { data: { x: '1' } }, 'application/merge-patch+json')
    assert.equal(merge.status, 422)
    assert.equal(json(merge).message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch')
    const unknown = await send('PATCH', `${CM}/a`, '{}', 'application/x-unknown')
    assert.equal(unknown.status, 415)
    assert.equal(
      json(unknown).message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    )
  })

  it('creates a missing object (201), then updates it (200); YAML and JSON bodies', async () => {
    const created = await send('PATCH', `${CM}/a?fieldManager=tool`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n')
    assert.equal(created.status, 201)
    const obj = json(created)
    assert.equal(obj.data.x, '1')
    assert.ok(obj.metadata.uid)
    assert.deepEqual(
      obj.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsType, e.fieldsV1]),
      [['tool', 'Apply', 'v1', 'FieldsV1', { 'f:data': { 'f:x': {} } }]],
    )
    const updated = await send('PATCH', `${CM}/a?fieldManager=tool`, cm('a', { y: '2' }))
    assert.equal(updated.status, 200)
    assert.deepEqual(json(updated).data, { y: '2' })
  })

  it('a conflict is the reference 409 Status with FieldManagerConflict causes', async () => {
    const r = await send('PATCH', `${CM}/a?fieldManager=other`, cm('a', { y: '3' }))
    assert.equal(r.status, 409)
    assert.deepEqual(json(r), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "tool": .data.y',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "tool"', field: '.data.y' }] },
      code: 409,
    })
    const forced = await send('PATCH', `${CM}/a?fieldManager=other&force=true`, cm('a', { y: '3' }))
    assert.equal(forced.status, 200)
    assert.equal(json(forced).data.y, '3')
  })

  it('dryRun=All creates nothing; bad bodies get the reference errors', async () => {
    const dry = await send('PATCH', `${CM}/dry?fieldManager=tool&dryRun=All`, cm('dry', { x: '1' }))
    assert.equal(dry.status, 201)
    assert.equal((await server.get(`${CM}/dry`)).status, 404)
    const version = await send('PATCH', `${CM}/a?fieldManager=tool`, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'a' } })
    assert.equal(version.status, 400)
    assert.equal(json(version).message, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1')
    const managed = await send('PATCH', `${CM}/a?fieldManager=tool`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', managedFields: [] } })
    assert.equal(managed.status, 400)
    assert.equal(json(managed).message, 'metadata.managedFields must be nil')
    const name = await send('PATCH', `${CM}/a?fieldManager=tool`, cm('b', {}))
    assert.equal(name.status, 400)
    assert.equal(json(name).message, 'the name of the object (b) does not match the name on the URL (a)')
    // The reference's answer to a field the schema lacks (kubernetes/kubernetes#122480): a 500 without a reason.
    const svc = await send('PATCH', '/api/v1/namespaces/general/services/admin-api?fieldManager=tool', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'admin-api', namespace: 'general' },
      spec: { topologyKeys: ['x'] },
    })
    assert.equal(svc.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to create typed patch object (general/admin-api; /v1, Kind=Service): .spec.topologyKeys: field not declared in schema","code":500}\n')
    const twice = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  z: "1"\n  z: "2"\n'
    const lastWins = await send('PATCH', `${CM}/a?fieldManager=tool&force=true&dryRun=All`, twice)
    assert.equal(lastWins.status, 200, lastWins.body)
    assert.equal(json(lastWins).data.z, '2')
    const strict = await send('PATCH', `${CM}/a?fieldManager=tool&fieldValidation=Strict`, twice)
    assert.equal(strict.status, 400)
    assert.match(json(strict).message, /^error strict decoding YAML: /)
    const yaml = await send('PATCH', `${CM}/a?fieldManager=tool`, 'a: [')
    assert.equal(yaml.status, 400)
    assert.match(json(yaml).message, /^error decoding YAML: /)
  })

  it('plain writes record Update entries: fieldManager, else the User-Agent product', async () => {
    const created = await send('POST', CM, cm('ua', { x: '1' }), 'application/json', { 'User-Agent': 'my-tool/1.2.3 (linux/amd64)' })
    assert.equal(created.status, 201)
    assert.deepEqual(
      json(created).metadata.managedFields.map((e: any) => [e.manager, e.operation, e.fieldsV1]),
      [['my-tool', 'Update', { 'f:data': { '.': {}, 'f:x': {} } }]],
    )
    const patched = await send('PATCH', `${CM}/ua?fieldManager=patcher`, { data: { y: '2' } }, 'application/merge-patch+json')
    const entries = json(patched).metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1])
    assert.deepEqual(entries[1], ['patcher', { 'f:data': { 'f:y': {} } }])
    const tooLong = await send('POST', `${CM}?fieldManager=${'x'.repeat(129)}`, cm('long', {}), 'application/json')
    assert.equal(tooLong.status, 422)
    assert.equal(json(tooLong).message, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
  })

  it('status subresource: apply and updates are recorded with subresource status', async () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    }
    assert.equal((await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/d?fieldManager=tool', deploy)).status, 201)
    const status = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/d/status?fieldManager=ctl&force=true', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      status: { observedGeneration: 1 },
    })
    assert.equal(status.status, 200)
    const entry = json(status).metadata.managedFields.find((e: any) => e.manager === 'ctl')
    assert.deepEqual([entry.operation, entry.subresource, entry.fieldsV1], ['Apply', 'status', { 'f:status': { 'f:observedGeneration': {} } }])
    assert.equal(json(status).status.observedGeneration, 1)
  })

  it('scale subresource: an applied Scale owns the replicas with subresource scale', async () => {
    const scale = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/d/scale?fieldManager=scaler', {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'd' },
      spec: { replicas: 3 },
    })
    assert.equal(scale.status, 200, scale.body)
    assert.equal(json(scale).kind, 'Scale')
    assert.equal(json(scale).spec.replicas, 3)
    const d = json(await server.get('/apis/apps/v1/namespaces/default/deployments/d'))
    assert.equal(d.spec.replicas, 3)
    const entry = d.metadata.managedFields.find((e: any) => e.manager === 'scaler')
    assert.deepEqual([entry.operation, entry.apiVersion, entry.subresource, entry.fieldsV1], ['Apply', 'apps/v1', 'scale', { 'f:spec': { 'f:replicas': {} } }])
    const conflict = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/d?fieldManager=tool', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 5 },
    })
    assert.equal(conflict.status, 409)
    assert.equal(json(conflict).message, 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale": .spec.replicas')
  })

  it('custom resources: applied with the CRD schema (list-map keys)', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'] /* a map list's key: required or defaulted */, properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    }
    assert.equal((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd, 'application/json')).status, 201)
    const path = '/apis/example.com/v1/namespaces/default/things/t'
    const thing = (ports: object[]) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { ports } })
    let first: Reply | undefined
    for (let i = 0; i < 50; i++) {
      first = await send('PATCH', `${path}?fieldManager=a`, thing([{ name: 'http', port: 80 }]))
      if (first.status !== 404) break
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.equal(first!.status, 201, first!.body)
    const second = await send('PATCH', `${path}?fieldManager=b`, thing([{ name: 'https', port: 443 }]))
    assert.equal(second.status, 200)
    assert.deepEqual(json(second).spec.ports, [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ])
    assert.deepEqual(json(second).metadata.managedFields.find((e: any) => e.manager === 'b').fieldsV1, {
      'f:spec': { 'f:ports': { 'k:{"name":"https"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    })
  })
})
