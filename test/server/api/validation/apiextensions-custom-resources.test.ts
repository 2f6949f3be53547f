/**
 * Custom resources against their CRD version's OpenAPI v3 schema, keyword by keyword (issue
 * #17, item 5). Expected texts are the reference's: kube-openapi's `pkg/validation/errors`
 * templates (`%s in body should have at least %d properties`, `should match '%s'`, ...) as
 * apiextensions-apiserver's `pkg/apiserver/validation` turns them into field errors (enum:
 * NotSupported; maxItems, maxProperties: TooMany; maxLength: TooLong; a type or format:
 * TypeInvalid; the rest: Invalid with the validator's value), `pkg/apiserver/schema/listtype`
 * (Duplicate) and `pkg/apiserver/schema/objectmeta` (embedded resources). A validator error names
 * its field with dots (`.spec.f.a`), which the reference appends as one path element.
 */
import assert from 'node:assert/strict'
import { validateCustomResource } from '../../../../src/server/api/schema/custom-resource.js'

type Json = Record<string, unknown>

/** The errors of a custom resource whose `spec.f` has the schema `f` and the value `value`. */
function errorsOf(f: Json, value: unknown): string[] {
  const schema = { type: 'object', properties: { spec: { type: 'object', properties: { f } } } }
  const o = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { f: value } }
  return validateCustomResource(schema, o, undefined).map((c) => `${c.field}: ${c.message}`)
}

type Case = [keyword: string, schema: Json, value: unknown, expected: string[]]

const CASES: Case[] = [
  ['minProperties', { type: 'object', minProperties: 2 }, { a: 1 }, ['spec.f: Invalid value: 1: spec.f in body should have at least 2 properties']],
  ['minProperties', { type: 'object', minProperties: 1 }, {}, ['spec.f: Invalid value: 0: spec.f in body should have at least 1 properties']],
  ['maxProperties', { type: 'object', maxProperties: 1 }, { a: 1, b: 2 }, ['spec.f: Too many: 2: must have at most 1 item']],
  ['maxProperties', { type: 'object', maxProperties: 2 }, { a: 1, b: 2, c: 3 }, ['spec.f: Too many: 3: must have at most 2 items']],
  ['pattern', { type: 'string', pattern: '^[a-z]+$' }, 'ABC', ["spec.f: Invalid value: \"ABC\": spec.f in body should match '^[a-z]+$'"]],
  ['pattern', { type: 'string', pattern: '^v[0-9]$' }, 'v10', ["spec.f: Invalid value: \"v10\": spec.f in body should match '^v[0-9]$'"]],
  ['format', { type: 'string', format: 'date' }, 'yesterday', ['spec.f: Invalid value: "yesterday": spec.f in body must be of type date: "yesterday"']],
  ['format', { type: 'string', format: 'uuid' }, 'not-a-uuid', ['spec.f: Invalid value: "not-a-uuid": spec.f in body must be of type uuid: "not-a-uuid"']],
  ['enum', { type: 'string', enum: ['red', 'blue'] }, 'purple', ['spec.f: Unsupported value: "purple": supported values: "red", "blue"']],
  ['enum', { type: 'integer', enum: [1, 2] }, 3, ['spec.f: Unsupported value: 3: supported values: "1", "2"']],
  ['multipleOf', { type: 'integer', multipleOf: 5 }, 7, ['spec.f: Invalid value: 7: spec.f in body should be a multiple of 5']],
  ['multipleOf', { type: 'number', multipleOf: 0.5 }, 0.3, ['spec.f: Invalid value: 0.3: spec.f in body should be a multiple of 0.5']],
  ['minItems', { type: 'array', minItems: 2, items: { type: 'string' } }, ['a'], ['spec.f: Invalid value: 1: spec.f in body should have at least 2 items']],
  ['minItems', { type: 'array', minItems: 1, items: { type: 'string' } }, [], ['spec.f: Invalid value: 0: spec.f in body should have at least 1 items']],
  ['maxItems', { type: 'array', maxItems: 2, items: { type: 'string' } }, ['a', 'b', 'c'], ['spec.f: Too many: 3: must have at most 2 items']],
  ['maxItems', { type: 'array', maxItems: 1, items: { type: 'string' } }, ['a', 'b'], ['spec.f: Too many: 2: must have at most 1 item']],
  ['minLength', { type: 'string', minLength: 3 }, 'ab', ['spec.f: Invalid value: "ab": spec.f in body should be at least 3 chars long']],
  ['minLength', { type: 'string', minLength: 1 }, '', ['spec.f: Invalid value: "": spec.f in body should be at least 1 chars long']],
  ['maxLength', { type: 'string', maxLength: 2 }, 'abc', ['spec.f: Too long: may not be more than 2 bytes']],
  ['maxLength', { type: 'string', maxLength: 1 }, 'ab', ['spec.f: Too long: may not be more than 1 byte']],
  ['minimum', { type: 'integer', minimum: 1 }, 0, ['spec.f: Invalid value: 0: spec.f in body should be greater than or equal to 1']],
  ['minimum', { type: 'integer', minimum: 1, exclusiveMinimum: true }, 1, ['spec.f: Invalid value: 1: spec.f in body should be greater than 1']],
  ['maximum', { type: 'integer', maximum: 10 }, 11, ['spec.f: Invalid value: 11: spec.f in body should be less than or equal to 10']],
  ['maximum', { type: 'integer', maximum: 10, exclusiveMaximum: true }, 10, ['spec.f: Invalid value: 10: spec.f in body should be less than 10']],
  ['nullable', { type: 'string' }, null, ['spec.f: Invalid value: "null": spec.f in body must be of type string: "null"']],
  ['nullable', { type: 'object', nullable: true }, null, []],
  ['x-kubernetes-int-or-string', { 'x-kubernetes-int-or-string': true }, 8080, []],
  ['x-kubernetes-int-or-string', { 'x-kubernetes-int-or-string': true }, 'http', []],
  ['x-kubernetes-list-type set', { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, ['a', 'b', 'a'], ['spec.f[2]: Duplicate value: "a"']],
  ['x-kubernetes-list-type set', { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } }, [1, 1], ['spec.f[1]: Duplicate value: 1']],
  ['x-kubernetes-list-type map', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } }, [{ name: 'a' }, { name: 'a' }], ['spec.f[1]: Duplicate value: {"name":"a"}']],
  ['x-kubernetes-list-type map', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } }, [{ name: 'a' }, { name: 'b' }], []],
  ['x-kubernetes-map-type', { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } }, { a: 'x' }, []],
  ['x-kubernetes-map-type', { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } }, { a: 1 }, ['spec.f.a: Invalid value: "integer": spec.f.a in body must be of type string: "integer"']],
  ['x-kubernetes-embedded-resource', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, { metadata: { name: 'x' } }, ['spec.f.apiVersion: Required value', 'spec.f.kind: Required value']],
  ['x-kubernetes-embedded-resource', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, []],
]

describe('validation/apiextensions: custom resources against their OpenAPI v3 schema, keyword by keyword', () => {
  for (const [keyword, schema, value, expected] of CASES) {
    it(`${keyword}: ${JSON.stringify(schema)} with ${JSON.stringify(value)}`, () => {
      assert.deepEqual(errorsOf(schema, value), expected)
    })
  }
  it('covers every keyword with at least two cases', () => {
    const counts = new Map<string, number>()
    for (const [k] of CASES) {
      const base = k.replace(/ (set|map)$/, '')
      counts.set(base, (counts.get(base) ?? 0) + 1)
    }
    for (const [k, n] of counts) assert.ok(n >= 2, `${k} has ${n} case(s)`)
  })
})
