import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { aggregatedDiscoveryVersion, compareKubeAwareVersions, groupDiscoveries, writeAggregatedDiscovery } from '../../../src/server/api/discovery-aggregated.js'
import type { Request, Response } from '../../../src/server/http/types.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { REFERENCE_GROUP_ORDER } from '../../support/reference-discovery.js'

/** The Accept header kubectl 1.27+ sends on /api and /apis (research kubectl-client.md 3.3). */
const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'

function fakeResponse(): Response & { body: string; headers: Record<string, unknown> } {
  const headers: Record<string, unknown> = {}
  const res = new PassThrough() as unknown as Response & { body: string; headers: Record<string, unknown> }
  Object.assign(res, {
    body: '',
    headers,
    statusCode: 200,
    headersSent: false,
    setHeader: (k: string, v: unknown) => {
      headers[k.toLowerCase()] = v
    },
    getHeader: (k: string) => headers[k.toLowerCase()],
    end: (chunk?: string) => {
      res.body = chunk ?? ''
    },
  })
  return res
}

describe('api: aggregated discovery', () => {
  it('serves the form the Accept header asks first; plain JSON or a Table clause first is legacy', () => {
    assert.equal(aggregatedDiscoveryVersion(KUBECTL_ACCEPT), 'v2')
    assert.equal(aggregatedDiscoveryVersion('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'), 'v2beta1')
    assert.equal(aggregatedDiscoveryVersion('application/json, */*'), undefined)
    assert.equal(aggregatedDiscoveryVersion(undefined), undefined)
    assert.equal(aggregatedDiscoveryVersion('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'), 'v2')
    assert.equal(aggregatedDiscoveryVersion('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'), undefined)
  })

  it('a resource as the reference lists it: responseKind, scope, singular, verbs, short names, categories, sorted subresources', () => {
    const apps = groupDiscoveries(KINDS).find((g) => (g.metadata as { name: string }).name === 'apps')!
    const v1 = (apps.versions as Array<{ version: string; freshness: string; resources: Array<Record<string, unknown>> }>)[0]!
    assert.equal(v1.version, 'v1')
    assert.equal(v1.freshness, 'Current')
    assert.deepEqual(
      v1.resources.find((r) => r.resource === 'deployments'),
      {
        resource: 'deployments',
        responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
        scope: 'Namespaced',
        singularResource: 'deployment',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['deploy'],
        categories: ['all'],
        subresources: [
          { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
          { subresource: 'status', responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
        ],
      },
    )
    const namespaces = groupDiscoveries(KINDS.filter((k) => k.group === ''))[0]!
    const ns = (namespaces.versions as Array<{ resources: Array<Record<string, unknown>> }>)[0]!.resources.find((r) => r.resource === 'namespaces')!
    assert.equal(ns.scope, 'Cluster')
    assert.deepEqual(ns.shortNames, ['ns'])
  })

  it('orders groups by the reference priorities (apps first, CRD groups last), versions GA > beta > alpha', () => {
    const names = groupDiscoveries(KINDS.filter((k) => k.group !== '')).map((g) => (g.metadata as { name: string }).name)
    assert.deepEqual(names, REFERENCE_GROUP_ORDER)
    const autoscaling = groupDiscoveries(KINDS.filter((k) => k.group === 'autoscaling'))[0]!
    assert.deepEqual((autoscaling.versions as Array<{ version: string }>).map((v) => v.version), ['v2', 'v1'])
    assert.deepEqual(['v1alpha1', 'v1beta1', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo10', 'foo1'].sort(compareKubeAwareVersions), [
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v1beta1',
      'v12alpha1',
      'v11alpha2',
      'v1alpha1',
      'foo1',
      'foo10',
    ])
  })

  it('Content-Type names the form, ETag is a quoted SHA-512, a matching If-None-Match is 304', () => {
    const req = { headers: {} } as Request
    const res = fakeResponse()
    writeAggregatedDiscovery(req, res, KINDS.filter((k) => k.group === ''), 'v2')
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')
    assert.equal(res.headers.vary, 'Accept')
    assert.equal(res.headers['cache-control'], 'public')
    const etag = String(res.headers.etag)
    assert.match(etag, /^"[0-9A-F]{128}"$/)
    const body = JSON.parse(res.body)
    assert.equal(body.kind, 'APIGroupDiscoveryList')
    assert.equal(body.apiVersion, 'apidiscovery.k8s.io/v2')
    assert.deepEqual(body.items[0].metadata, { name: '', creationTimestamp: null })

    const again = fakeResponse()
    writeAggregatedDiscovery({ headers: { 'if-none-match': etag } } as unknown as Request, again, KINDS.filter((k) => k.group === ''), 'v2beta1')
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
  })
})
