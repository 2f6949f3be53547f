import assert from 'node:assert/strict'
import { load } from 'js-yaml'
import { customResourceStrategy } from '../../../src/server/api/kinds/crd.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { buildV2 } from '../../../src/server/api/openapi.js'
import { loadOpenApiData } from '../../../src/server/api/openapi-data.js'
import { encodeOpenApiV2, openApiV2DocumentType } from '../../../src/server/api/openapi-v2-protobuf.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { crontabCrd } from '../../support/crontab-crd.js'

type Json = Record<string, any>

const CRONTAB_CRD: KubeObject = crontabCrd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { cronSpec: { type: 'string', enum: ['a', 'b'] } } })

/** The top-level field numbers and wire types of a message, read without any descriptor. */
function topLevelFields(buf: Uint8Array): Set<string> {
  const out = new Set<string>()
  let i = 0
  const varint = (): number => {
    let v = 0
    let shift = 0
    for (;;) {
      const b = buf[i++]!
      v += (b & 0x7f) * 2 ** shift
      if (b < 0x80) return v
      shift += 7
    }
  }
  while (i < buf.length) {
    const key = varint()
    const wire = key & 7
    out.add(`${Math.floor(key / 8)}:${wire}`)
    if (wire === 2) {
      const length = varint()
      i += length
    }
    else if (wire === 0) varint()
    else if (wire === 1) i += 8
    else if (wire === 5) i += 4
    else throw new Error(`wire type ${wire}`)
  }
  return out
}

const named = (pairs: Json[] | undefined, name: string): Json => {
  const pair = (pairs ?? []).find((p) => p.name === name)
  assert.ok(pair, `no ${name}`)
  return pair.value
}
const extension = (s: Json, name: string): unknown => load(named(s.vendor_extension, name).yaml)

describe('api: the OpenAPI v2 document in gnostic protobuf form', function () {
  this.timeout(30_000)

  let v2: Json
  let bytes: Buffer
  let doc: Json
  before(async () => {
    v2 = buildV2(await loadOpenApiData(), [...KINDS, customResourceStrategy(CRONTAB_CRD, 'v1')]) as Json
    bytes = encodeOpenApiV2(v2)
    doc = openApiV2DocumentType().toObject(openApiV2DocumentType().decode(bytes), { defaults: false }) as Json
  })

  it('uses openapi.v2.Document field numbers: swagger 1, info 2, paths 8, definitions 9, parameters 10, security 12, securityDefinitions 13', () => {
    assert.deepEqual([...topLevelFields(bytes)].sort(), ['10:2', '12:2', '13:2', '1:2', '2:2', '8:2', '9:2'])
    assert.equal(doc.swagger, '2.0')
    assert.equal(doc.info.title, v2.info.title)
  })

  it('keeps every path and definition, in order', () => {
    assert.deepEqual(doc.paths.path.map((p: Json) => p.name), Object.keys(v2.paths))
    assert.deepEqual(doc.definitions.additional_properties.map((p: Json) => p.name), Object.keys(v2.definitions))
  })

  it('carries the extensions kubectl reads as YAML in Any.yaml', () => {
    const defs = doc.definitions.additional_properties
    const deployment = named(defs, 'io.k8s.api.apps.v1.Deployment')
    assert.deepEqual(extension(deployment, 'x-kubernetes-group-version-kind'), [{ group: 'apps', kind: 'Deployment', version: 'v1' }])
    assert.equal(named(deployment.properties.additional_properties, 'spec')._ref, '#/definitions/io.k8s.api.apps.v1.DeploymentSpec')
    const podSpec = named(defs, 'io.k8s.api.core.v1.PodSpec')
    const containers = named(podSpec.properties.additional_properties, 'containers')
    assert.equal(extension(containers, 'x-kubernetes-patch-merge-key'), 'name')
    assert.equal(extension(containers, 'x-kubernetes-patch-strategy'), 'merge')
    assert.deepEqual(containers.type.value, ['array'])
    assert.equal(containers.items.schema[0]._ref, '#/definitions/io.k8s.api.core.v1.Container')
    assert.deepEqual(podSpec.required, ['containers'])
    const labels = named(named(defs, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').properties.additional_properties, 'labels')
    assert.deepEqual(labels.additional_properties.schema.type.value, ['string'])
    const crontab = named(defs, 'com.example.stable.v1.CronTab')
    const spec = named(crontab.properties.additional_properties, 'spec')
    assert.equal(extension(spec, 'x-kubernetes-preserve-unknown-fields'), true)
    assert.deepEqual(named(spec.properties.additional_properties, 'cronSpec').enum.map((a: Json) => load(a.yaml)), ['a', 'b'])
  })

  it('maps parameters onto body, query and path variants and references onto json_reference', () => {
    const item = named(doc.paths.path, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')
    const shared = item.parameters.map((p: Json) => p.json_reference?._ref ?? p.parameter?.non_body_parameter?.path_parameter_sub_schema?.name)
    assert.ok(shared.includes('name'), String(shared))
    assert.ok(shared.includes('#/parameters/namespace-vgWSWtn3'), String(shared))
    const patch = item.patch
    assert.equal(extension(patch, 'x-kubernetes-action'), 'patch')
    assert.equal(patch.parameters[0].json_reference._ref, '#/parameters/body-78PwaGsr')
    const body = named(doc.parameters.additional_properties, 'body-78PwaGsr').body_parameter
    assert.equal(body.in, 'body')
    assert.equal(body.required, true)
    assert.equal(body.schema._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch')
    const query = patch.parameters.map((p: Json) => p.parameter?.non_body_parameter?.query_parameter_sub_schema).filter(Boolean)
    assert.ok(query.some((q: Json) => q.name === 'fieldValidation' && q.type === 'string' && q.in === 'query'), JSON.stringify(query))
    assert.equal(named(patch.responses.response_code, '200').response.schema.schema._ref, '#/definitions/io.k8s.api.apps.v1.Deployment')
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'))
  })

  it('keeps the security definition and requirement', () => {
    const bearer = named(doc.security_definitions.additional_properties, 'BearerToken')
    assert.deepEqual({ type: bearer.api_key_security.type, name: bearer.api_key_security.name, in: bearer.api_key_security.in }, { type: 'apiKey', name: 'authorization', in: 'header' })
    assert.equal(doc.security[0].additional_properties[0].name, 'BearerToken')
  })
})
