/**
 * A CRD's `x-kubernetes-validations` held to the reference's estimated cost limits when the CRD
 * is written. The schemas are the reference's (apiextensions-apiserver
 * `pkg/apis/apiextensions/validation/validation_test.go`, TestValidateCustomResourceDefinitionValidation
 * and TestCostInfo); it checks the errors' types and paths, which are asserted here, with the
 * messages of validation.go's getCostErrorMessage. The factors follow from cel-go's cost
 * functions, derived by hand in the comments.
 */
import assert from 'node:assert/strict'
import { customresourcedefinitions } from '../../../../src/server/api/kinds/crd.js'
import { TotalCost, costErrorMessage } from '../../../../src/server/api/validation/apiextensions-cel-cost.js'
import { Path } from '../../../../src/server/api/validation/field/index.js'
import { type Json, createErrors, updateErrors } from './groups-support.js'

const S = 'spec.validation.openAPIV3Schema'
const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)'
const CONTRIBUTED = 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'

const crd = (openAPIV3Schema: Json): Json => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
  },
})

const errors = (schema: Json) => createErrors(customresourcedefinitions, crd(schema))

describe('validation/apiextensions: the estimated cost of x-kubernetes-validations', () => {
  it('forbids rules whose cost total exceeds the total limit, naming the most expensive', () => {
    const schema = {
      type: 'object',
      properties: {
        list: { type: 'array', maxItems: 100000, items: { type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] } },
        map: { type: 'object', maxProperties: 1000, additionalProperties: { type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] } },
        field: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 50 && self < 100' }] },
      },
    }
    // contains: ceil(20000 * 0.1) * ceil(7 * 0.1) + self = 2001 per string; x 100000 items = 200100000,
    // x 1000 values = 2001000; the integer rule 2 + 2 = 4: 202101004 in all.
    assert.deepEqual(errors(schema), [
      `${S}.properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 20.0x ${HINT}`,
      `${S}.properties[list].items.x-kubernetes-validations[0].rule: ${CONTRIBUTED}`,
      `${S}.properties[map].additionalProperties.x-kubernetes-validations[0].rule: ${CONTRIBUTED}`,
      `${S}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 2.0x ${HINT}`,
    ])
  })

  it('forbids a messageExpression over the per-expression limit', () => {
    const schema = {
      type: 'object',
      properties: { f: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'true', messageExpression: 'self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]' }] } },
    }
    // Unbounded strings are 3145726 long; the seven concatenations cost ceil(k * 3145726 * 0.1) for
    // k = 2..8 plus 2 per index: 11010060.
    assert.deepEqual(errors(schema), [`${S}.properties[f].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of 1.101006x ${HINT}`])
  })

  it('forbids a messageExpression over the per-CRD limit, and counts it in the total', () => {
    const schema = {
      type: 'object',
      properties: { f: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'true', messageExpression: 'string(self[0]) + string(self[1]) + string(self[2])' }] } },
    }
    const MORE = `exceeds budget by factor of more than 100x ${HINT}`
    assert.deepEqual(errors(schema), [
      `${S}.properties[f].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost ${MORE}`,
      `${S}.properties[f].x-kubernetes-validations[0].messageExpression: ${CONTRIBUTED}`,
      `${S}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema ${MORE}`,
    ])
  })

  it('accepts a quadratic rule over bounded lists (lowerAscii)', () => {
    const schema = {
      type: 'object',
      properties: { f: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))' }] } },
    }
    assert.deepEqual(errors(schema), [])
  })

  it('bounds metadata.name and generateName by their 253 characters', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.metadata.name.contains(self.metadata.name) && self.metadata.generateName.contains(self.metadata.generateName)' }] }
    assert.deepEqual(errors(schema), [])
  })

  it('refuses an unbounded regex over a list of strings, and accepts it once bounded', () => {
    const rule = { rule: "self.all(x, x.matches('^[a-z]+$'))" }
    const unbounded = { type: 'object', properties: { names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [rule] } } }
    const MORE = `exceeds budget by factor of more than 100x ${HINT}`
    assert.deepEqual(errors(unbounded), [
      `${S}.properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost ${MORE}`,
      `${S}.properties[names].x-kubernetes-validations[0].rule: ${CONTRIBUTED}`,
      `${S}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema ${MORE}`,
    ])
    const bounded = { type: 'object', properties: { names: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, 'x-kubernetes-validations': [rule] } } }
    assert.deepEqual(errors(bounded), [])
  })

  it('multiplies a rule by the maxItems above it, or by what fits in a request', () => {
    // self.s costs 2; contains on a string of at most 10 (40 bytes) ceil(40 * 0.1) * ceil(1 * 0.1) = 4: 6 in all.
    // 4 items: 6 x 4 = 24 (accepted); an unbounded list of such objects (2 bytes at least) repeats the rule
    // 3 MiB / 3 = 1048576 times: 6291456 (accepted); with strings of 1000: 402 x 1048576 = 421527552 (42.15x, refused).
    const list = (itemMaxLength: number, maxItems?: number): Json => ({
      type: 'object',
      properties: { l: { type: 'array', ...(maxItems === undefined ? {} : { maxItems }), items: { type: 'object', properties: { s: { type: 'string', maxLength: itemMaxLength } }, 'x-kubernetes-validations': [{ rule: "self.s.contains('x')" }] } } },
    })
    assert.deepEqual(errors(list(10, 4)), [])
    assert.deepEqual(errors(list(10)), [])
    const refused = errors(list(1000))
    assert.equal(refused[0], `${S}.properties[l].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 42.2x ${HINT}`)
  })

  it('does not hold an unchanged schema to the per-expression limit on update', () => {
    // 1000 x 2001 = 2001000 per value, x 10000 values = 20010000: over the per-expression limit, under the total.
    const schema = { type: 'object', properties: { map: { type: 'object', maxProperties: 10000, additionalProperties: { type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] } } } }
    const ruleError = `${S}.properties[map].additionalProperties.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 2.0x ${HINT}`
    assert.deepEqual(errors(schema), [ruleError])
    assert.deepEqual(updateErrors(customresourcedefinitions, crd(schema), (o) => (o.metadata.labels = { a: 'b' })), [])
    const changed = updateErrors(customresourcedefinitions, crd(schema), (o) => (o.spec.versions[0].schema.openAPIV3Schema.properties.map.description = 'changed'))
    assert.deepEqual(changed, [ruleError])
  })
})

describe('validation/apiextensions: TotalCost (TestCostInfo)', () => {
  const table: [string, bigint[], bigint[], bigint][] = [
    ['no costs', [], [], 0n],
    ['one cost', [1000000n], [1000000n], 1000000n],
    ['one cost, ignored', [900000n], [], 900000n],
    ['2 costs', [5000000n, 25000000n], [25000000n, 5000000n], 30000000n],
    ['3 costs, one ignored', [5000000n, 25000000n, 900000n], [25000000n, 5000000n], 30900000n],
    ['4 costs', [16000000n, 50000000n, 34000000n, 50000000n], [50000000n, 50000000n, 34000000n, 16000000n], 150000000n],
    ['5 costs, one trimmed, one ignored', [16000000n, 50000000n, 900000n, 34000000n, 50000000n, 50000001n], [50000001n, 50000000n, 50000000n, 34000000n], 200900001n],
    ['costs do not overflow', [(2n ** 64n - 1n) / 2n, (2n ** 64n - 1n) / 2n, 1n, 10n, 100n, 1000n], [(2n ** 64n - 1n) / 2n, (2n ** 64n - 1n) / 2n], 2n ** 64n - 1n],
  ]
  for (const [name, costs, expensive, total] of table) {
    it(name, () => {
      const t = new TotalCost()
      for (const c of costs) t.observe(Path.of('x'), c)
      assert.deepEqual(
        t.mostExpensive.map((e) => e.cost),
        expensive,
      )
      assert.equal(t.total, total)
    })
  }

  it('formats the factor as Go does (%f under 1.5x, %.1f to 100x)', () => {
    assert.match(costErrorMessage('estimated rule cost', 10000001n, 10000000n), /^estimated rule cost exceeds budget by factor of 1\.000000x \(/)
    assert.match(costErrorMessage('estimated rule cost', 25000000n, 10000000n), /by factor of 2\.5x /)
    assert.match(costErrorMessage('estimated rule cost', 1000000001n, 10000000n), /by factor of more than 100x /)
  })
})
