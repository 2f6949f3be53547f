import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { customResourceStrategy } from '../../../src/server/api/kinds/crd.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { buildV2, buildV3, convertSchema, openApiHandler } from '../../../src/server/api/openapi.js'
import { loadOpenApiData } from '../../../src/server/api/openapi-data.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { crontabCrd } from '../../support/crontab-crd.js'
import { enabledKinds } from '../../../src/server/api/runtime-config.js'
import type { Request, RequestContext, Response } from '../../../src/server/http/types.js'

type Json = Record<string, any>

const CRONTAB_CRD: KubeObject = crontabCrd({ type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer', nullable: true } } })

function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refs(x, out))
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' ? out.push(String(x)) : refs(x, out)
  return out
}

function call(handler: ReturnType<typeof openApiHandler>, url: string, headers: Record<string, string> = {}) {
  const resHeaders: Record<string, unknown> = {}
  const res = Object.assign(new PassThrough(), {
    statusCode: 200,
    headersSent: false,
    body: '',
    setHeader: (k: string, v: unknown) => void (resHeaders[k.toLowerCase()] = v),
    getHeader: (k: string) => resHeaders[k.toLowerCase()],
  }) as unknown as Response & { body: string }
  ;(res as unknown as { end: (c?: string) => void }).end = (c?: string) => void ((res as { body: string }).body = c ?? '')
  const u = new URL(url, 'https://127.0.0.1')
  return Promise.resolve(handler({ method: 'GET', headers } as unknown as Request, res, { url: u } as RequestContext)).then(() => ({ status: res.statusCode, headers: resHeaders, body: res.body }))
}

describe('api: OpenAPI v2 and v3 from the reference document', function () {
  this.timeout(20_000)

  it('v3 group version documents: paths of the group version, components, the PATCH kubectl looks for', async () => {
    const docs = buildV3(await loadOpenApiData(), KINDS)
    assert.ok(docs.has('api/v1') && docs.has('apis/apps/v1') && docs.has('apis/batch/v1') && docs.has('apis/apps') && docs.has('apis') && docs.has('api'))
    const apps = docs.get('apis/apps/v1')! as Json
    assert.equal(apps.openapi, '3.0.0')
    assert.ok(Object.keys(apps.paths).every((p) => p.startsWith('/apis/apps/v1/')))
    const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' })
    const fieldValidation = patch.parameters.find((p: Json) => p.name === 'fieldValidation')
    assert.equal(fieldValidation.in, 'query')
    assert.deepEqual(fieldValidation.schema, { type: 'string', uniqueItems: true })
    assert.deepEqual(Object.keys(patch.requestBody.content), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
      'application/apply-patch+cbor',
    ])
    // kube-openapi wraps a $ref with siblings in allOf.
    const metadata = apps.components.schemas['io.k8s.api.apps.v1.Deployment'].properties.metadata
    assert.deepEqual(metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }])
    assert.equal(metadata.$ref, undefined)
    // Every reference resolves inside the document; no pod path is in the apps document.
    for (const ref of refs(apps)) assert.ok(apps.components.schemas[ref.replace('#/components/schemas/', '')], ref)
    assert.equal(apps.components.schemas['io.k8s.api.batch.v1.Job'], undefined)
    // Served subresources are advertised (pods/exec and pods/log since the node agents' handlers); unserved ones are not.
    const core = docs.get('api/v1')! as Json
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/status'])
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'])
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/log'])
    assert.equal(core.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/scale'], undefined)
  })

  it('convertSchema: definitions refs become component refs', () => {
    assert.deepEqual(convertSchema({ $ref: '#/definitions/a.B' }), { $ref: '#/components/schemas/a.B' })
    assert.deepEqual(convertSchema({ type: 'array', items: { $ref: '#/definitions/a.B', description: 'x' } }), {
      type: 'array',
      items: { description: 'x', allOf: [{ $ref: '#/components/schemas/a.B' }] },
    })
  })

  it('--runtime-config removes a group version from v2 and v3', async () => {
    const data = await loadOpenApiData()
    const kinds = enabledKinds(KINDS, [{ key: 'batch/v1', value: 'false' }])
    assert.equal(buildV3(data, kinds).has('apis/batch/v1'), false)
    assert.equal(buildV3(data, kinds).has('apis/batch'), false)
    const v2 = buildV2(data, kinds) as Json
    assert.ok(!Object.keys(v2.paths).some((p) => p.startsWith('/apis/batch/')))
    assert.ok(v2.paths['/apis/apps/v1/namespaces/{namespace}/deployments'])
    assert.equal(v2.definitions['io.k8s.api.batch.v1.Job'], undefined)
  })

  it('a custom resource gets its schema and paths in its group version (v2 without nullable)', async () => {
    const data = await loadOpenApiData()
    const kinds = [...KINDS, customResourceStrategy(CRONTAB_CRD, 'v1')]
    const doc = buildV3(data, kinds).get('apis/stable.example.com/v1')! as Json
    const schema = doc.components.schemas['com.example.stable.v1.CronTab']
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }])
    assert.equal(schema.properties.spec.properties.cronSpec.type, 'string')
    assert.deepEqual(schema.properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }])
    const patch = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'].patch
    assert.ok(patch.parameters.some((p: Json) => p.name === 'fieldValidation'))
    assert.equal(patch.requestBody.content['application/strategic-merge-patch+json'], undefined)
    for (const ref of refs(doc)) assert.ok(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref)
    const v2 = buildV2(data, kinds) as Json
    assert.equal(v2.definitions['com.example.stable.v1.CronTab'].properties.spec.properties.replicas.nullable, undefined)
  })

  it('serves the index with hashed URLs; a hashed URL is immutable, a stale hash redirects, If-None-Match is 304', async () => {
    const handler = openApiHandler(async () => KINDS)
    const index = await call(handler, '/openapi/v3')
    assert.equal(index.status, 200)
    const url = JSON.parse(index.body).paths['apis/apps/v1'].serverRelativeURL as string
    assert.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/)
    const doc = await call(handler, url)
    assert.equal(doc.status, 200)
    assert.equal(doc.headers['cache-control'], 'public, immutable')
    assert.equal(doc.headers['content-type'], 'application/json')
    assert.equal(doc.headers.etag, `"${url.split('hash=')[1]}"`)
    const stale = await call(handler, '/openapi/v3/apis/apps/v1?hash=ABC')
    assert.equal(stale.status, 301)
    assert.equal(stale.headers.location, url)
    const cached = await call(handler, '/openapi/v3/apis/apps/v1', { 'if-none-match': String(doc.headers.etag) })
    assert.equal(cached.status, 304)
    assert.equal((await call(handler, '/openapi/v3/apis/nope/v1')).status, 404)
    const v2 = await call(handler, '/openapi/v2', { accept: 'application/json' })
    assert.equal(v2.status, 200)
    assert.equal(JSON.parse(v2.body).swagger, '2.0')
    // kube-openapi serves protobuf for either spelling, answering with the current one; nothing else is 406.
    for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
      const pb = await call(handler, '/openapi/v2', { accept })
      assert.equal(pb.status, 200)
      assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf')
      assert.equal(pb.headers.vary, 'Accept')
      assert.equal(pb.headers.etag, v2.headers.etag)
    }
    const preferred = await call(handler, '/openapi/v2', { accept: 'application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf' })
    assert.equal(preferred.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf')
    assert.equal((await call(handler, '/openapi/v2', { accept: 'application/*' })).headers['content-type'], 'application/json')
    assert.equal((await call(handler, '/openapi/v2', { accept: 'application/yaml' })).status, 406)
  })
})
