import assert from 'node:assert/strict'
import { loadOpenApiData } from '../../../src/server/api/openapi-data.js'
import { addWarnings, fieldValidationOf, strictDecodingError, unknownFieldMessage } from '../../../src/server/api/schema/field-validation.js'
import type { Response } from '../../../src/server/http/types.js'
import { duplicateFieldMessage, duplicateFields } from '../../../src/server/api/schema/duplicates.js'
import { goFormat } from '../../../src/server/api/schema/go-format.js'
import { pruneAndDefault, validateSchema } from '../../../src/server/api/schema/structural.js'
import { QUANTITY_FORMAT_ERROR, TypedDecoder, quantityError } from '../../../src/server/api/schema/typed.js'

function deployment(spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
  }
}

describe('api: schema decoding and validation', function () {
  this.timeout(20_000)
  let typed: TypedDecoder
  let definitions: Record<string, Record<string, unknown>>
  before(async () => {
    definitions = (await loadOpenApiData()).definitions
    typed = new TypedDecoder(definitions)
  })

  it('finds the definition of a served kind', () => {
    assert.equal(typed.rootOf('apps', 'v1', 'Deployment'), 'io.k8s.api.apps.v1.Deployment')
    assert.equal(typed.rootOf('', 'v1', 'Pod'), 'io.k8s.api.core.v1.Pod')
  })

  it('unknown fields: paths with list indexes, in the order of the body, dropped from the object', () => {
    const obj = deployment({})
    obj.spec = { foo: 1, ...(obj.spec as object) }
    ;((obj.spec as any).template.spec.containers[0] as Record<string, unknown>).bar = true
    const r = typed.decode('io.k8s.api.apps.v1.Deployment', obj)
    assert.equal(r.error, undefined)
    assert.deepEqual(r.unknown, ['spec.foo', 'spec.template.spec.containers[0].bar'])
    assert.equal((r.value as any).spec.foo, undefined)
    assert.deepEqual((r.value as any).spec.template.spec.containers[0], { name: 'c', image: 'nginx' })
    // The reference's texts (kubectl-client.md section 9).
    assert.equal(strictDecodingError(r.unknown.slice(0, 1).map(unknownFieldMessage)), 'strict decoding error: unknown field "spec.foo"')
    assert.equal(strictDecodingError(r.unknown.map(unknownFieldMessage)), 'strict decoding error: unknown field "spec.foo", unknown field "spec.template.spec.containers[0].bar"')
  })

  it('a null field is left unset, as a Go pointer field is', () => {
    const r = typed.decode('io.k8s.api.apps.v1.Deployment', deployment({ replicas: null }))
    assert.equal(r.error, undefined)
    assert.equal('replicas' in ((r.value as any).spec as object), false)
  })

  it('wrong types: encoding/json messages with the struct and the field path', () => {
    const d = 'io.k8s.api.apps.v1.Deployment'
    assert.equal(typed.decode(d, deployment({ replicas: 'x' })).error, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32')
    assert.equal(typed.decode(d, deployment({ replicas: 1.5 })).error, 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32')
    assert.equal(typed.decode(d, { ...deployment({}), spec: 'x' }).error, 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec')
    const containers = deployment({})
    ;(containers.spec as any).template.spec.containers = 'x'
    assert.equal(typed.decode(d, containers).error, 'json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container')
    const image = deployment({})
    ;(image.spec as any).template.spec.containers[0].image = 5
    assert.equal(typed.decode(d, image).error, 'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string')
    assert.equal(
      typed.decode(d, { ...deployment({}), metadata: { name: 'web', labels: { a: 1 } } }).error,
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    )
    assert.equal(typed.decode(d, deployment({ paused: 'yes' })).error, 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool')
  })

  it('after a strategic merge patch: the unstructured converter\'s words', () => {
    const converter = new TypedDecoder(definitions, 'unstructured')
    const d = 'io.k8s.api.apps.v1.Deployment'
    assert.equal(converter.decode(d, deployment({ replicas: 'x' })).error, 'cannot convert string to int32')
    assert.equal(converter.decode(d, deployment({ replicas: 1.5 })).error, 'cannot convert float64 to int32')
    assert.equal(converter.decode(d, deployment({ paused: 1 })).error, 'cannot convert int64 to bool')
    assert.equal(converter.decode(d, { ...deployment({}), spec: 'x' }).error, 'cannot restore struct from: string')
    const containers = deployment({})
    ;(containers.spec as any).template.spec.containers = 'x'
    assert.equal(converter.decode(d, containers).error, 'cannot restore slice from string')
    assert.equal(converter.decode(d, { ...deployment({}), metadata: { name: 'web', labels: 'x' } }).error, 'cannot restore map from string')
    assert.equal(
      converter.decode(d, deployment({ strategy: { rollingUpdate: { maxSurge: true } } })).error,
      'json: cannot unmarshal bool into Go value of type int32',
    )
  })

  it('int-or-string, quantity and byte fields decode as their own types do', () => {
    const d = 'io.k8s.api.apps.v1.Deployment'
    assert.equal(typed.decode(d, deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } })).error, undefined)
    assert.equal(
      typed.decode(d, deployment({ strategy: { rollingUpdate: { maxSurge: true } } })).error,
      'json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32',
    )
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { limits: { cpu: '100m', memory: 'lots' } } }] } }
    assert.equal(typed.decode('io.k8s.api.core.v1.Pod', pod).error, QUANTITY_FORMAT_ERROR)
    assert.equal(QUANTITY_FORMAT_ERROR, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    assert.equal(quantityError('1Gi'), undefined)
    assert.equal(quantityError('0.5'), undefined)
    assert.equal(quantityError('1e3'), undefined)
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'aGk=', b: 'not base64!' } }
    assert.match(typed.decode('io.k8s.api.core.v1.Secret', secret).error ?? '', /^illegal base64 data at input byte \d+$/)
  })

  it('duplicate fields of the raw JSON, with their paths', () => {
    assert.deepEqual(duplicateFields('{"spec":{"replicas":1,"a":[{"x":1,"x":"}\\""}],"replicas":2},"b":{},"spec":1}'), ['spec.a[0].x', 'spec.replicas', 'spec'])
    assert.deepEqual(duplicateFields('apiVersion: v1\nkind: Pod\n'), [])
    // Escaped keys are compared decoded; escaped quotes and backslashes end no string early.
    assert.deepEqual(duplicateFields('{"u\\u0041":1,"uA":2,"a\\"b":"x\\\\","a\\"b":{"c":"\\\\\\"","c":3}}'), ['uA', 'a"b', 'a"b.c'])
    assert.deepEqual(duplicateFields(' { "x" : [ [ {"k":1, "k":2} ] ] , "x" : { } } '), ['x[0][0].k', 'x'])
    assert.equal(duplicateFieldMessage('spec.replicas'), 'duplicate field "spec.replicas"')
  })

  it('fieldValidation: Warn when absent; Warn sends one Warning: 299 header value per field', () => {
    assert.equal(fieldValidationOf(new URLSearchParams('')), 'Warn')
    assert.equal(fieldValidationOf(new URLSearchParams('fieldValidation=Strict')), 'Strict')
    assert.throws(() => fieldValidationOf(new URLSearchParams('fieldValidation=strict')), /fieldValidation: Unsupported value: "strict": supported values: "Ignore", "Strict", "Warn"/)
    const headers: Record<string, unknown> = {}
    const res = { headersSent: false, getHeader: (k: string) => headers[k], setHeader: (k: string, v: unknown) => void (headers[k] = v) } as unknown as Response
    addWarnings(res, ['unknown field "spec.foo"', 'unknown field "spec.bar"'])
    addWarnings(res, ['unknown field "spec.foo"'])
    assert.deepEqual(headers.Warning, ['299 - "unknown field \\"spec.foo\\""', '299 - "unknown field \\"spec.bar\\""'])
  })

  it('goFormat prints a patch as Go prints map[string]interface{}', () => {
    assert.equal(goFormat({ spec: { foo: 1, a: [1, 'x'], b: null } }), 'map[spec:map[a:[1 x] b:<nil> foo:1]]')
  })

  const CRONTAB = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['cronSpec'],
        properties: {
          cronSpec: { type: 'string', pattern: '^\\d+$' },
          replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
          mode: { type: 'string', enum: ['a', 'b'] },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          port: { 'x-kubernetes-int-or-string': true },
        },
      },
    },
  }

  it('custom resources: pruning, preserved fields and defaults', () => {
    const unknown: string[] = []
    const out = pruneAndDefault(CRONTAB, { apiVersion: 'x/v1', kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: '1', foo: 1, free: { any: { thing: 1 } } }, extra: 1 }, '', unknown, true)
    assert.deepEqual(unknown, ['spec.foo', 'extra'])
    assert.deepEqual(out, { apiVersion: 'x/v1', kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: '1', free: { any: { thing: 1 } }, replicas: 1 } })
  })

  it('custom resources: the reference field errors', () => {
    const causes = validateSchema(CRONTAB, { spec: { replicas: 'x', mode: 'c', port: true } }, '')
    assert.deepEqual(
      causes.map((c) => `${c.field}: ${c.message}`),
      [
        // kube-openapi's object validator: the properties' errors, then the required ones.
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        'spec.mode: Unsupported value: "c": supported values: "a", "b"',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        'spec.cronSpec: Required value',
      ],
    )
    assert.deepEqual(
      validateSchema(CRONTAB, { spec: { cronSpec: 'x', replicas: 20 } }, '').map((c) => `${c.field}: ${c.message}`),
      ["spec.cronSpec: Invalid value: \"x\": spec.cronSpec in body should match '^\\d+$'", 'spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10'],
    )
    assert.deepEqual(
      validateSchema(CRONTAB, { spec: { cronSpec: '1', replicas: 0 } }, '').map((c) => c.message),
      ['Invalid value: 0: spec.replicas in body should be greater than or equal to 1'],
    )
    assert.deepEqual(
      validateSchema({ type: 'object', properties: { ip: { type: 'string', format: 'ipv4' } } }, { ip: '1.2.3.4:8080' }, '').map((c) => `${c.field}: ${c.message}`),
      ['ip: Invalid value: "1.2.3.4:8080": ip in body must be of type ipv4: "1.2.3.4:8080"'],
    )
  })

  it('custom resources: list-type set and map uniqueness, as the reference reports duplicates', () => {
    const schema = {
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
        },
        owners: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object' } },
      },
    }
    const value = {
      tags: ['a', 'b', 'a', 'a', 'b'],
      ports: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { protocol: 'TCP', port: 80 }],
      owners: [{ name: 'x' }, {}, { name: 'x' }, { other: 1 }],
    }
    assert.deepEqual(
      validateSchema(schema, value, '').map((c) => `${c.field}: ${c.message}`),
      [
        'tags[2]: Duplicate value: "a"',
        'tags[4]: Duplicate value: "b"',
        // apimachinery v0.35 field.Error.ErrorBody: values other than strings, numbers and booleans as JSON.
        'ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}',
        'owners[2]: Duplicate value: {"name":"x"}',
        'owners[3]: Duplicate value: {}',
      ],
    )
    assert.deepEqual(
      validateSchema(schema, { owners: ['x'] }, '').map((c) => `${c.field}: ${c.message}`),
      // The schema's type error first, then the list type's, as the reference validates in that order.
      ['owners[0]: Invalid value: "string": owners[0] in body must be of type object: "string"', 'owners[0]: Invalid value: "x": must be an object for an array of list-type map'],
    )
  })
})
