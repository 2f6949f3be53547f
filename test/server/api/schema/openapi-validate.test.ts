/**
 * Custom resources against their OpenAPI v3 schema. The cases and expected texts are the
 * reference's: apiextensions-apiserver `pkg/apiserver/validation/validation_test.go`
 * (TestValidateCustomResource, v0.35.0, compared as sets as that test does), kube-openapi's
 * `pkg/validation/errors/schema.go` templates for the keywords that test does not cover, and
 * apimachinery's `field.Error` bodies (`Too many`, `Too long`, `Unsupported value`).
 */
import assert from 'node:assert/strict'
import { validateOpenAPI } from '../../../../src/server/api/schema/openapi-validate.js'
import { validateSchema } from '../../../../src/server/api/schema/structural.js'

type Json = Record<string, unknown>

interface Case {
  name: string
  schema: Json
  valid?: Json[]
  failing?: [Json, string[]][]
}

const field = (schema: Json): Json => ({ type: 'object', properties: { field: schema } })
const TYPES: [string, unknown][] = [
  ['string', 'foo'],
  ['integer', 42],
  ['boolean', true],
  ['number', 1.2],
  ['array', []],
  ['object', {}],
]
const typeErrors = (expected: string, except: string[]): [Json, string[]][] =>
  TYPES.filter(([t]) => !except.includes(t)).map(([t, v]) => [{ field: v }, [`field: Invalid value: "${t}": field in body must be of type ${expected}: "${t}"`]])

// validation_test.go TestValidateCustomResource, in its order.
const CASES: Case[] = [
  {
    name: '!nullable',
    schema: field({ type: 'object', nullable: false }),
    valid: [{}, { field: {} }],
    failing: [...typeErrors('object', ['object']), [{ field: null }, ['field: Invalid value: "null": field in body must be of type object: "null"']]],
  },
  { name: 'nullable', schema: field({ type: 'object', nullable: true }), valid: [{}, { field: {} }, { field: null }], failing: typeErrors('object', ['object']) },
  { name: 'nullable and no type', schema: field({ nullable: true }), valid: [{}, { field: {} }, { field: null }, { field: 'foo' }, { field: 42 }, { field: true }, { field: 1.2 }, { field: [] }] },
  {
    name: 'x-kubernetes-int-or-string',
    schema: field({ 'x-kubernetes-int-or-string': true }),
    valid: [{}, { field: 42 }, { field: 'foo' }],
    failing: [[{ field: null }, ['field: Invalid value: "null": field in body must be of type integer,string: "null"']], ...typeErrors('integer,string', ['integer', 'string'])],
  },
  {
    name: 'nullable and x-kubernetes-int-or-string',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true }),
    valid: [{}, { field: 42 }, { field: 'foo' }, { field: null }],
    failing: typeErrors('integer,string', ['integer', 'string']),
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided anyOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
    valid: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    failing: TYPES.filter(([t]) => t !== 'integer' && t !== 'string').map(([t, v]) => [
      { field: v },
      [
        '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
        `field: Invalid value: "${t}": field in body must be of type integer,string: "${t}"`,
        `field: Invalid value: "${t}": field in body must be of type integer: "${t}"`,
      ],
    ]),
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provider allOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }),
    valid: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    failing: TYPES.filter(([t]) => t !== 'integer' && t !== 'string').map(([t, v]) => [
      { field: v },
      [
        '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
        '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
        `field: Invalid value: "${t}": field in body must be of type integer,string: "${t}"`,
        `field: Invalid value: "${t}": field in body must be of type integer: "${t}"`,
      ],
    ]),
  },
  {
    name: 'required field',
    schema: { type: 'object', required: ['field'], properties: { field: { type: 'object', required: ['nested'], properties: { nested: {} } } } },
    failing: [
      [{ test: 'a' }, ['field: Required value']],
      [{ field: {} }, ['field.nested: Required value']],
    ],
  },
  {
    name: 'enum',
    schema: field({ type: 'object', required: ['nestedint', 'nestedstring'], properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } } }),
    failing: [
      [{ field: {} }, ['field.nestedint: Required value', 'field.nestedstring: Required value']],
      [
        { field: { nestedint: 'x', nestedstring: true } },
        [
          'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
          'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
          'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
          'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
        ],
      ],
    ],
  },
  { name: 'maxProperties', schema: { type: 'object', properties: { fieldX: { type: 'object', maxProperties: 2 } } }, failing: [[{ fieldX: { a: true, b: true, c: true } }, ['fieldX: Too many: 3: must have at most 2 items']]] },
  { name: 'maxItems', schema: { type: 'object', properties: { fieldX: { type: 'array', maxItems: 2 } } }, failing: [[{ fieldX: ['a', 'b', 'c'] }, ['fieldX: Too many: 3: must have at most 2 items']]] },
  { name: 'maxLength', schema: { type: 'object', properties: { fieldX: { type: 'string', maxLength: 2 } } }, failing: [[{ fieldX: 'abc' }, ['fieldX: Too long: may not be more than 2 bytes']]] },
  { name: 'k8sLongName', schema: { type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-long-name' } } }, failing: [[{ fieldX: 'a.-' }, ['fieldX: Invalid value: "a.-": fieldX in body must be of type k8s-long-name: "a.-"']]] },
  { name: 'k8sShortName', schema: { type: 'object', properties: { fieldX: { type: 'string', format: 'k8s-short-name' } } }, failing: [[{ fieldX: 'a-' }, ['fieldX: Invalid value: "a-": fieldX in body must be of type k8s-short-name: "a-"']]] },
]

// The remaining keywords, with kube-openapi's templates (errors/schema.go) through
// kubeOpenAPIResultToFieldErrors (field.Invalid with the value, field.Error's body).
const KEYWORDS: Case[] = [
  { name: 'minProperties', schema: field({ type: 'object', minProperties: 2 }), valid: [{ field: { a: 1, b: 2 } }], failing: [[{ field: { a: 1 } }, ['field: Invalid value: 1: field in body should have at least 2 properties']]] },
  { name: 'maxProperties of one', schema: field({ type: 'object', maxProperties: 1 }), failing: [[{ field: { a: 1, b: 2 } }, ['field: Too many: 2: must have at most 1 item']]] },
  { name: 'pattern', schema: field({ type: 'string', pattern: '^[a-z]+$' }), valid: [{ field: 'abc' }], failing: [[{ field: 'ab1' }, ["field: Invalid value: \"ab1\": field in body should match '^[a-z]+$'"]]] },
  { name: 'minLength (runes)', schema: field({ type: 'string', minLength: 3 }), valid: [{ field: 'héé' }], failing: [[{ field: 'ab' }, ['field: Invalid value: "ab": field in body should be at least 3 chars long']]] },
  { name: 'maxLength of one', schema: field({ type: 'string', maxLength: 1 }), failing: [[{ field: 'ab' }, ['field: Too long: may not be more than 1 byte']]] },
  { name: 'minItems', schema: field({ type: 'array', minItems: 2 }), failing: [[{ field: ['a'] }, ['field: Invalid value: 1: field in body should have at least 2 items']]] },
  { name: 'uniqueItems', schema: field({ type: 'array', uniqueItems: true }), valid: [{ field: [1, 2] }], failing: [[{ field: [{ a: 1 }, { a: 1 }] }, ['field: Invalid value: "": field in body shouldn\'t contain duplicates']]] },
  { name: 'minimum', schema: field({ type: 'integer', minimum: 1 }), valid: [{ field: 1 }], failing: [[{ field: 0 }, ['field: Invalid value: 0: field in body should be greater than or equal to 1']]] },
  { name: 'exclusiveMinimum', schema: field({ type: 'integer', minimum: 1, exclusiveMinimum: true }), valid: [{ field: 2 }], failing: [[{ field: 1 }, ['field: Invalid value: 1: field in body should be greater than 1']]] },
  { name: 'maximum', schema: field({ type: 'number', maximum: 1.5 }), valid: [{ field: 1.5 }], failing: [[{ field: 2.5 }, ['field: Invalid value: 2.5: field in body should be less than or equal to 1.5']]] },
  { name: 'exclusiveMaximum', schema: field({ type: 'integer', maximum: 10, exclusiveMaximum: true }), failing: [[{ field: 10 }, ['field: Invalid value: 10: field in body should be less than 10']]] },
  { name: 'multipleOf', schema: field({ type: 'integer', multipleOf: 5 }), valid: [{ field: 15 }], failing: [[{ field: 7 }, ['field: Invalid value: 7: field in body should be a multiple of 5']]] },
  { name: 'multipleOf, fractional', schema: field({ type: 'number', multipleOf: 0.5 }), valid: [{ field: 1.5 }], failing: [[{ field: 1.2 }, ['field: Invalid value: 1.2: field in body should be a multiple of 0.5']]] },
  { name: 'enum of a string', schema: field({ type: 'string', enum: ['Always', 'Never'] }), failing: [[{ field: 'Sometimes' }, ['field: Unsupported value: "Sometimes": supported values: "Always", "Never"']]] },
  { name: 'format ipv4', schema: field({ type: 'string', format: 'ipv4' }), valid: [{ field: '10.0.0.1' }], failing: [[{ field: '1.2.3.4:8080' }, ['field: Invalid value: "1.2.3.4:8080": field in body must be of type ipv4: "1.2.3.4:8080"']]] },
  { name: 'format uuid', schema: field({ type: 'string', format: 'uuid' }), valid: [{ field: '123e4567-e89b-12d3-a456-426614174000' }], failing: [[{ field: 'nope' }, ['field: Invalid value: "nope": field in body must be of type uuid: "nope"']]] },
  { name: 'format date-time', schema: field({ type: 'string', format: 'date-time' }), valid: [{ field: '2024-01-02T03:04:05Z' }], failing: [[{ field: '2024-13-02T03:04:05Z' }, ['field: Invalid value: "2024-13-02T03:04:05Z": field in body must be of type date-time: "2024-13-02T03:04:05Z"']]] },
  { name: 'unsupported format is not checked', schema: field({ type: 'string', format: 'not-a-format' }), valid: [{ field: 'anything' }] },
  { name: 'a type error at a list index', schema: field({ type: 'array', items: { type: 'integer' } }), failing: [[{ field: [1, 'x'] }, ['field[1]: Invalid value: "string": field[1] in body must be of type integer: "string"']]] },
  { name: 'additionalProperties', schema: field({ type: 'object', additionalProperties: { type: 'string', maxLength: 2 } }), failing: [[{ field: { k: 'abc' } }, ['field.k: Too long: may not be more than 2 bytes']]] },
  {
    name: 'oneOf',
    schema: field({ type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] }),
    valid: [{ field: { a: 1 } }],
    failing: [[{ field: { a: 1, b: 2 } }, ['<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives']]],
  },
  { name: 'not', schema: field({ type: 'string', not: { enum: ['x'] } }), failing: [[{ field: 'x' }, ['<nil>: Invalid value: "": "field" must not validate the schema (not)']]] },
]

function texts(schema: Json, value: Json): string[] {
  return validateOpenAPI(schema, value).map((c) => `${c.field}: ${c.message}`)
}

describe('api/schema: custom resources against their OpenAPI v3 schema', () => {
  for (const c of [...CASES, ...KEYWORDS]) {
    it(c.name, () => {
      for (const v of c.valid ?? []) assert.deepEqual(texts(c.schema, v), [], JSON.stringify(v))
      for (const [v, expected] of c.failing ?? []) assert.deepEqual(new Set(texts(c.schema, v)), new Set(expected), JSON.stringify(v))
    })
  }

  it('orders the errors of one object as the validator does: properties first, then required', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', required: ['cronSpec'], properties: { replicas: { type: 'integer' }, cronSpec: { type: 'string' } } } } }
    assert.deepEqual(texts(schema, { spec: { replicas: 'x' } }), ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"', 'spec.cronSpec: Required value'])
  })

  it('reports one cause a type error, with the reason FieldValueTypeInvalid, and a repeated text once', () => {
    const causes = validateOpenAPI(field({ type: 'integer' }), { field: 'x' })
    assert.deepEqual(causes, [{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": field in body must be of type integer: "string"', field: 'field' }])
    const both = validateOpenAPI(field({ type: 'integer', allOf: [{ type: 'integer' }] }), { field: 'x' })
    assert.equal(both.filter((c) => c.field === 'field').length, 1)
  })

  it('the status subresource: paths under status', () => {
    const causes = validateOpenAPI({ type: 'object', properties: { replicas: { type: 'integer', minimum: 0 } } }, { replicas: -1 }, 'status')
    assert.deepEqual(causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: replicas in body should be greater than or equal to 0', field: 'status.replicas' }])
  })

  it('ratchets an update: an invalid value left unchanged is accepted, a changed one is not', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 5 }, name: { type: 'string', maxLength: 3 } } } } }
    const old = { spec: { size: 9, name: 'ok' } }
    assert.deepEqual(validateOpenAPI(schema, { spec: { size: 9, name: 'abc' } }, '', { value: old }), [])
    assert.deepEqual(
      validateOpenAPI(schema, { spec: { size: 9, name: 'abcd' } }, '', { value: old }).map((c) => `${c.field}: ${c.message}`),
      ['spec.name: Too long: may not be more than 3 bytes'],
    )
    assert.deepEqual(
      validateOpenAPI(schema, { spec: { size: 10, name: 'ok' } }, '', { value: old }).map((c) => c.field),
      ['spec.size'],
    )
  })

  it('embedded resources: apiVersion and kind required, kind of DNS-1035 form', () => {
    const schema = field({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true })
    assert.deepEqual(
      validateSchema(schema, { field: {} }).map((c) => `${c.field}: ${c.message}`),
      ['field.apiVersion: Required value', 'field.kind: Required value'],
    )
    assert.deepEqual(
      validateSchema(schema, { field: { apiVersion: 'a/b/c', kind: 'Foo_Bar' } }).map((c) => `${c.field}: ${c.message}`),
      [
        'field.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        `field.kind: Invalid value: "Foo_Bar": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ],
    )
    assert.deepEqual(validateSchema(schema, { field: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } } }), [])
  })
})
