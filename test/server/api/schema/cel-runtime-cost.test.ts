/**
 * The runtime cost of custom resources' validation rules: each evaluation charged to the
 * object's budget and held to the per-call limit. Cases, numbers and messages are the
 * reference's: apiextensions-apiserver `pkg/apiserver/schema/cel/celcoststability_test.go`
 * (TestCelCostStability: the budget a rule spends on an object), `validation_test.go`
 * (TestCELValidationLimit, TestMessageExpression) and validation.go's messages.
 */
import assert from 'node:assert/strict'
import { compileRuleTree } from '../../../../src/server/api/schema/cel-rules.js'
import { type CostBudget, newCostBudget, validateCelRules } from '../../../../src/server/api/schema/cel-validation.js'
import { Path } from '../../../../src/server/api/validation/field/index.js'

type Json = Record<string, unknown>

const RUNTIME_CEL_COST_BUDGET = 10000000n
const integerType: Json = { type: 'integer' }
const stringType: Json = { type: 'string' }
const booleanType: Json = { type: 'boolean' }
const listType = (items: Json): Json => ({ type: 'array', items })
const mapType = (values: Json): Json => ({ type: 'object', additionalProperties: values })
const objs = (...vals: unknown[]): Json => Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v]))
const schemas = (...ss: Json[]): Json => ({ type: 'object', properties: Object.fromEntries(ss.map((s, i) => [`val${i + 1}`, s])) })

function run(schema: Json, rules: Json[], obj: unknown, budget: CostBudget = newCostBudget()): { errors: string[]; budget: CostBudget } {
  const withRules = { ...schema, 'x-kubernetes-validations': rules }
  const errors = validateCelRules(compileRuleTree(withRules, false), withRules, Path.of('root'), obj, undefined, false, budget).map(String)
  return { errors, budget }
}

function spent(schema: Json, rule: string, obj: unknown): bigint {
  return RUNTIME_CEL_COST_BUDGET - run(schema, [{ rule }], obj).budget.remaining
}

const listMapSchema: Json = { type: 'object', properties: { listMap: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: stringType, v: stringType, v2: stringType } } } } }

const STABILITY: [string, Json, Json, Record<string, number>][] = [
  ['integers', schemas(integerType, integerType, integerType, integerType, integerType, integerType), objs(1, 1, 2147483647, 2147483647, 1, 1), { 'self.val1 == self.val6': 5, 'type(self.val1) == int': 4, 'self.val3 + 1 == 2147483647 + 1': 5 }],
  [
    'unicode strings',
    schemas(stringType, stringType),
    objs('Rook takes 👑', 'Rook takes 👑'),
    {
      "self.val1.startsWith('Rook')": 3,
      "!self.val1.startsWith('knight')": 4,
      "self.val1.matches('^[^0-9]*$')": 8,
      "!self.val1.matches('^[0-9]*$')": 7,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 4,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 7,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 6,
      "self.val1.substring(5) == 'takes 👑'": 5,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 6,
      'self.val1.lowerAscii() == self.val1.lowerAscii()': 10,
    },
  ],
  ['booleans', schemas(booleanType, booleanType, booleanType, booleanType), objs(true, true, false, false), { 'self.val1 != self.val4': 5, 'type(self.val1) == bool': 4 }],
  [
    'lists',
    schemas(listType(integerType), listType(integerType)),
    objs([1, 2, 3], [1, 2, 3]),
    { '1 in self.val1': 5, 'self.val2[0] in self.val1': 8, '!(0 in self.val1)': 6, 'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 6, 'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 4, 'has(self.val1)': 1, 'has(self.val1) && has(self.val2)': 2 },
  ],
  ['maps', schemas(mapType(stringType), mapType(stringType)), objs({ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }), { 'self.val1 == self.val2': 5, "'k1' in self.val1": 3, "!('k3' in self.val1)": 4, "self.val1 == {'k1': 'a', 'k2': 'b'}": 3 }],
  [
    'map access',
    { type: 'object', properties: { val: mapType(integerType) } },
    { val: { b: 1, d: 2 } },
    {
      "!('a' in self.val)": 4,
      "'b' in self.val": 3,
      'has(self.val.b)': 2,
      '!has(self.val.c)': 3,
      'self.val.all(k, self.val[k] > 0)': 17,
      '!self.val.exists(k, self.val[k] == 3)': 20,
      'self.val.exists_one(k, self.val[k] == 2)': 14,
      '!self.val.exists_one(k, self.val[k] > 0)': 17,
      'size(self.val) == 2': 4,
      'size(self.val.filter(k, self.val[k] > 1)) == 1': 26,
    },
  ],
  [
    'listMap access',
    listMapSchema,
    { listMap: [{ k: 'a1', v: 'b1' }, { k: 'a2', v: 'b2' }, { k: 'a3', v: 'b3', v2: 'z' }] },
    {
      "self.listMap.all(m, m.k.startsWith('a'))": 21,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 21,
      "self.listMap.exists(m, m.k.endsWith('1'))": 13,
      "self.listMap.exists_one(m, m.k == 'a3')": 15,
      "!self.listMap.all(m, m.k.endsWith('1'))": 18,
      "!self.listMap.exists(m, m.v == 'x')": 25,
      "!self.listMap.exists_one(m, m.k.startsWith('a'))": 20,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 27,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 16,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 55,
      "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')": 21,
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')": 10,
      "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')": 12,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 24,
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1": 25,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 39,
    },
  ],
  [
    'list access',
    { type: 'object', properties: { array: listType(integerType) } },
    { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    {
      '2 in self.array': 10,
      'self.array.all(e, e > 0)': 43,
      'self.array.exists(e, e > 2)': 36,
      'self.array.exists_one(e, e > 4)': 22,
      '!self.array.all(e, e < 2)': 21,
      '!self.array.exists(e, e < 0)': 52,
      '!self.array.exists_one(e, e == 2)': 25,
      'self.array.all(e, e < 100)': 43,
      'size(self.array.filter(e, e%2 == 0)) == 3': 68,
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)': 194,
      'size(self.array) == 8': 4,
    },
  ],
  [
    'listSet access',
    { type: 'object', properties: { set: listType(integerType) } },
    { set: [1, 2, 3, 4, 5] },
    {
      '3 in self.set': 7,
      'self.set.all(e, e > 0)': 28,
      'self.set.exists(e, e > 3)': 30,
      'self.set.exists_one(e, e == 3)': 16,
      '!self.set.all(e, e < 3)': 21,
      '!self.set.exists(e, e < 0)': 34,
      '!self.set.exists_one(e, e > 3)': 19,
      'self.set.all(e, e < 10)': 28,
      'size(self.set.filter(e, e%2 == 0)) == 2': 46,
      'self.set.map(e, e * 20).filter(e, e > 50).exists_one(e, e == 60)': 133,
      'size(self.set) == 5': 4,
    },
  ],
]

describe('CRD rules: runtime cost (celcoststability_test.go)', () => {
  for (const [name, schema, obj, expected] of STABILITY) {
    for (const [rule, cost] of Object.entries(expected)) {
      it(`${name}: ${rule} spends ${cost}`, () => assert.equal(spent(schema, rule, obj), BigInt(cost)))
    }
  }
})

describe('CRD rules: the cost budget and the per-call limit', () => {
  const OUT = 'validation failed due to running out of cost budget, no further validation rules will be run'

  it('refuses with the budget error once when no budget is left (TestCELValidationLimit)', () => {
    const { errors } = run(schemas(integerType), [{ rule: 'self.val1 > 0' }], objs(9007199254740991), newCostBudget(0n))
    assert.deepEqual(errors, [`root: Invalid value: "object": ${OUT}`])
  })

  it('refuses a rule over the per-call limit and runs no further rule (TestCELValidationLimit)', () => {
    const { errors, budget } = run(schemas(integerType), [{ rule: 'self.val1 > 0' }, { rule: 'self.val1 < 0' }], objs(1), newCostBudget(RUNTIME_CEL_COST_BUDGET, 0n))
    assert.deepEqual(errors, [`root: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.val1 > 0`])
    assert.equal(budget.remaining, -1n)
  })

  it('refuses an unbounded list whose rule costs more than the per-call limit', () => {
    // 50000 strings of 100: each match costs ceil(101 * 0.1) * ceil(8 * 0.25) = 22, over 1000000 in all.
    const names = Array.from({ length: 50000 }, () => 'a'.repeat(100))
    const rule = "self.all(x, x.matches('^[a-z]+$'))"
    const { errors } = run(listType(stringType), [{ rule }], names)
    assert.deepEqual(errors, [`root: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`])
    assert.deepEqual(run(listType(stringType), [{ rule }], names.slice(0, 1000)).errors, [])
  })

  it('stops when the rules together spend the budget', () => {
    // 35000 strings of 100: each rule costs 2 + 35000 x (3 + 1 + 22) = 910002, under the per-call limit;
    // the eleventh does not fit in the 10000000 budget.
    const names = Array.from({ length: 35000 }, () => 'a'.repeat(100))
    const rules = Array.from({ length: 12 }, () => ({ rule: "self.all(x, x.matches('^[a-z]+$'))" }))
    const { errors, budget } = run(listType(stringType), rules, names)
    assert.deepEqual(errors, [`root: Invalid value: "array": ${OUT}`])
    assert.equal(budget.remaining, -1n)
  })

  it('charges messageExpressions (TestMessageExpression)', () => {
    const schema = { type: 'object', properties: { str: stringType } }
    const obj = { str: 'a string' }
    const case_ = (messageExpression: string, budget: CostBudget) => run(schema, [{ rule: 'false', messageExpression }], obj, budget)

    const staticString = case_('"static string"', newCostBudget(300n))
    // A failed rule on an object omits the value; a cost error shows the schema type.
    assert.deepEqual(staticString.errors, ['root: Invalid value: static string'])
    assert.equal(staticString.budget.remaining, 300n)

    const concat = case_('"str1 " + self.str', newCostBudget(50n))
    assert.deepEqual(concat.errors, ['root: Invalid value: str1 a string'])
    assert.equal(concat.budget.remaining, 46n)

    const overBudget = case_('"string 1" + "string 2" + "string 3"', newCostBudget(1n))
    assert.deepEqual(overBudget.errors, ['root: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'])
    assert.equal(overBudget.budget.remaining, -1n)

    const overLimit = case_('"string 1" + "string 2" + "string 3"', newCostBudget(RUNTIME_CEL_COST_BUDGET, 1n))
    assert.deepEqual(overLimit.errors, ['root: Invalid value: "object": no further validation rules will be run due to call cost exceeds limit for messageExpression: "\\"string 1\\" + \\"string 2\\" + \\"string 3\\""'])
    assert.equal(overLimit.budget.remaining, -1n)
  })
})
