/**
 * The estimated cost of CRD validation rules against their schemas' declared sizes. Cases and
 * expected numbers are the reference's: apiextensions-apiserver
 * `pkg/apiserver/schema/cel/compilation_test.go` TestCostEstimation (each rule priced on a
 * schema without maxLength/maxItems/maxProperties, then with them set) and
 * TestMetadataNameCostIsBounded. Left out, as the engine cannot type-check them: `self == b"x"` on a
 * `format: byte` string (formats stay strings here) and `self[0] == null` on an object.
 */
import assert from 'node:assert/strict'
import { compileNodeRules } from '../../../../src/server/api/schema/cel-rules.js'

type Json = Record<string, unknown>

const COST_LIMIT = 100000000n

/** parseRuleType: formats are strings, int-or-string has no type. */
function ruleType(t: string): Json {
  if (t === 'duration' || t === 'date' || t === 'date-time') return { type: 'string', format: t }
  if (t === 'int-or-string') return { 'x-kubernetes-int-or-string': true }
  return { type: t }
}
const rules = (rule: string) => ({ 'x-kubernetes-validations': [{ rule }] })
const max = (key: string, v: number | undefined): Json => (v === undefined ? {} : { [key]: v })

const genArrayWithRule = (t: string, rule: string) => (m?: number): Json => ({ type: 'array', items: ruleType(t), ...max('maxItems', m), ...rules(rule) })
const genArrayOfArraysWithRule = (t: string, rule: string) => (m?: number): Json => ({ type: 'array', items: { type: 'array', items: { type: t } }, ...max('maxItems', m), ...rules(rule) })
const requiredOptional: Json = { type: 'object', properties: { required: { type: 'string' }, optional: { type: 'string' } }, required: ['required'] }
const genObjectArrayWithRule = (rule: string) => (m?: number): Json => ({ type: 'array', items: requiredOptional, ...max('maxItems', m), ...rules(rule) })
const getMapArrayWithRule = (t: string, rule: string) => (m?: number): Json => ({ type: 'array', items: { type: 'object', additionalProperties: { type: t } }, ...max('maxItems', m), ...rules(rule) })
const genMapWithRule = (t: string, rule: string) => (m?: number): Json => ({ type: 'object', additionalProperties: ruleType(t), ...max('maxProperties', m), ...rules(rule) })
const genMapWithCustomItemRule = (item: Json, rule: string) => (m?: number): Json => ({ type: 'object', additionalProperties: item, ...max('maxProperties', m), ...rules(rule) })
const genStringWithRule = (rule: string) => (m?: number): Json => ({ type: 'string', ...max('maxLength', m), ...rules(rule) })
const genEnumWithRuleAndValues = (rule: string, ...values: string[]) => (m?: number): Json => ({ type: 'string', ...max('maxLength', m), enum: values, ...rules(rule) })
const genNestedSpecWithRule = (rule: string) => (m?: number): Json => ({ type: 'object', additionalProperties: { type: 'string', ...max('maxLength', m) }, ...max('maxProperties', m), ...rules(rule) })
const genAllMaxNestedSpecWithRootRule = (rule: string) => (m?: number): Json => ({
  type: 'array',
  items: { type: 'object', additionalProperties: { ...requiredOptional, ...max('maxProperties', m) }, ...max('maxProperties', m) },
  ...max('maxItems', m),
  ...rules(rule),
})
const genOneMaxNestedSpecWithRootRule = (rule: string) => (m?: number): Json => ({
  type: 'array',
  items: { type: 'object', additionalProperties: requiredOptional, ...max('maxProperties', m) },
  ...rules(rule),
})
const withMaxLength = (s: Json, m?: number): Json => ({ ...s, ...max('maxLength', m) })
const genArrayForMap: Json = { type: 'array', items: { type: 'number' } }
const genMapForMap: Json = { type: 'object', additionalProperties: { type: 'number' } }

interface Case {
  name: string
  gen: (m?: number) => Json
  setMaxElements: number
  calc?: bigint
  calcExceeds?: bigint
  set?: bigint
}

const cases: Case[] = [
  { name: 'number array with all', gen: genArrayWithRule('number', 'self.all(x, true)'), calc: 4718591n, setMaxElements: 10, set: 32n },
  { name: 'string array with all', gen: genArrayWithRule('string', 'self.all(x, true)'), calc: 3145727n, setMaxElements: 20, set: 62n },
  { name: 'boolean array with all', gen: genArrayWithRule('boolean', 'self.all(x, true)'), calc: 1887437n, setMaxElements: 5, set: 17n },
  { name: 'array of number arrays with all', gen: genArrayOfArraysWithRule('number', 'self.all(x, true)'), calc: 3145727n, setMaxElements: 100, set: 302n },
  { name: 'array of objects with all', gen: genObjectArrayWithRule('self.all(x, true)'), calc: 555128n, setMaxElements: 50, set: 152n },
  { name: 'map of numbers with all', gen: genMapWithRule('number', 'self.all(x, true)'), calc: 1348169n, setMaxElements: 10, set: 32n },
  { name: 'map of strings with all', gen: genMapWithRule('string', 'self.all(x, true)'), calc: 1179647n, setMaxElements: 3, set: 11n },
  { name: 'map of booleans with all', gen: genMapWithRule('boolean', 'self.all(x, true)'), calc: 943718n, setMaxElements: 100, set: 302n },
  { name: 'string with contains', gen: genStringWithRule("self.contains('test')"), calc: 314574n, setMaxElements: 10, set: 5n },
  { name: 'string with startsWith', gen: genStringWithRule("self.startsWith('test')"), calc: 2n, setMaxElements: 15, set: 2n },
  { name: 'string with endsWith', gen: genStringWithRule("self.endsWith('test')"), calc: 2n, setMaxElements: 30, set: 2n },
  { name: 'concat string', gen: genStringWithRule('size(self + "hello") > size("hello")'), calc: 314578n, setMaxElements: 4, set: 7n },
  { name: 'index of array with numbers', gen: genArrayWithRule('number', 'self[1] == 0.0'), calc: 2n, setMaxElements: 5000, set: 2n },
  { name: 'index of array with strings', gen: genArrayWithRule('string', 'self[1] == self[1]'), calc: 314577n, setMaxElements: 8, set: 314577n },
  { name: 'O(n^2) loop with numbers', gen: genArrayWithRule('number', 'self.all(x, self.all(y, true))'), calcExceeds: COST_LIMIT, setMaxElements: 10, set: 352n },
  { name: 'O(n^3) loop with numbers', gen: genArrayWithRule('number', 'self.all(x, self.all(y, self.all(z, true)))'), calcExceeds: COST_LIMIT, setMaxElements: 10, set: 3552n },
  { name: 'regex matches simple', gen: genStringWithRule('self.matches("x")'), calc: 314574n, setMaxElements: 50, set: 22n },
  { name: 'regex matches empty string', gen: genStringWithRule('"".matches("(((((((((())))))))))[0-9]")'), calc: 7n, setMaxElements: 10, set: 7n },
  { name: 'regex matches empty regex', gen: genStringWithRule('self.matches("")'), calc: 1n, setMaxElements: 100, set: 1n },
  { name: 'map of strings with value length', gen: genNestedSpecWithRule('self.all(x, x.contains(self[x]))'), calc: 2752507n, setMaxElements: 10, set: 72n },
  { name: 'set array maxLength to zero', gen: genArrayWithRule('number', 'self[3] == 0.0'), calc: 2n, setMaxElements: 0, set: 2n },
  { name: 'set map maxLength to zero', gen: genMapWithRule('number', 'self["x"] == 0.0'), calc: 2n, setMaxElements: 0, set: 2n },
  { name: 'set string maxLength to zero', gen: genStringWithRule('self == "x"'), calc: 2n, setMaxElements: 0, set: 1n },
  { name: 'set maxLength greater than estimated maxLength', gen: genArrayWithRule('number', 'self.all(x, x == 0.0)'), calc: 6291454n, setMaxElements: 3 * 1024 * 2048, set: 25165826n },
  { name: 'nested types with root rule with all supporting maxLength', gen: genAllMaxNestedSpecWithRootRule('self.all(x, x["y"].required == "z")'), calc: 7340027n, setMaxElements: 10, set: 72n },
  { name: 'nested types with root rule with one supporting maxLength', gen: genOneMaxNestedSpecWithRootRule('self.all(x, x["y"].required == "z")'), calc: 7340027n, setMaxElements: 10, set: 7340027n },
  { name: 'int-or-string array with all', gen: genArrayWithRule('int-or-string', 'self.all(x, true)'), calc: 4718591n, setMaxElements: 10, set: 32n },
  { name: 'index of array with int-or-strings', gen: genArrayWithRule('int-or-string', 'self[0] == 5'), calc: 3n, setMaxElements: 10, set: 3n },
  { name: 'index of array with booleans', gen: genArrayWithRule('boolean', 'self[0] == false'), calc: 2n, setMaxElements: 25, set: 2n },
  { name: 'index of array of array of numnbers', gen: genArrayOfArraysWithRule('number', 'self[0][0] == -1.0'), calc: 3n, setMaxElements: 51, set: 3n },
  { name: 'array of number maps with all', gen: getMapArrayWithRule('number', 'self.all(x, x.y == 25.2)'), calc: 6291452n, setMaxElements: 12, set: 74n },
  { name: 'index of array of number maps', gen: getMapArrayWithRule('number', 'self[0].x > 2.0'), calc: 4n, setMaxElements: 3000, set: 4n },
  { name: 'duration array with all', gen: genArrayWithRule('duration', 'self.all(x, true)'), calc: 2359295n, setMaxElements: 5, set: 17n },
  { name: 'date array with all', gen: genArrayWithRule('date', 'self.all(x, true)'), calc: 725936n, setMaxElements: 15, set: 47n },
  { name: 'date-time array with all', gen: genArrayWithRule('date-time', 'self.all(x, true)'), calc: 428963n, setMaxElements: 25, set: 77n },
  { name: 'map of int-or-strings with all', gen: genMapWithRule('int-or-string', 'self.all(x, true)'), calc: 1348169n, setMaxElements: 15, set: 47n },
  { name: 'map of objects with all', gen: genMapWithCustomItemRule(requiredOptional, 'self.all(x, true)'), calc: 428963n, setMaxElements: 20, set: 62n },
  { name: 'map of number maps with all', gen: genMapWithCustomItemRule(genMapForMap, 'self.all(x, true)'), calc: 1179647n, setMaxElements: 10, set: 32n },
  { name: 'map of number arrays with all', gen: genMapWithCustomItemRule(genArrayForMap, 'self.all(x, true)'), calc: 1179647n, setMaxElements: 25, set: 77n },
  { name: 'map of durations with all', gen: genMapWithRule('duration', 'self.all(x, true)'), calc: 1048577n, setMaxElements: 5, set: 17n },
  { name: 'map of dates with all', gen: genMapWithRule('date', 'self.all(x, true)'), calc: 524288n, setMaxElements: 10, set: 32n },
  { name: 'map of date-times with all', gen: genMapWithRule('date-time', 'self.all(x, true)'), calc: 349526n, setMaxElements: 25, set: 77n },
  { name: 'extended library regex find', gen: genStringWithRule("self.find('[0-9]+') == ''"), calc: 629147n, setMaxElements: 10, set: 11n },
  {
    name: 'extended library join',
    gen: (m) => ({ type: 'array', items: withMaxLength({ type: 'string' }, m), ...max('maxItems', m), 'x-kubernetes-list-type': 'atomic', ...rules("self.join(' ') == 'aa bb'") }),
    calc: 329853068905n,
    setMaxElements: 10,
    set: 43n,
  },
  {
    name: 'extended library isSorted',
    gen: (m) => ({ type: 'array', items: withMaxLength({ type: 'string' }, m), ...max('maxItems', m), 'x-kubernetes-list-type': 'atomic', ...rules('self.isSorted() == true') }),
    calc: 329854432052n,
    setMaxElements: 10,
    set: 52n,
  },
  {
    name: 'extended library replace',
    gen: (m) => ({
      type: 'object',
      properties: { str: withMaxLength({ type: 'string' }, m), before: { type: 'string', maxLength: 2 }, after: { type: 'string', maxLength: 4 } },
      ...rules("self.str.replace(self.before, self.after) == 'does not matter'"),
    }),
    calc: 629154n,
    setMaxElements: 4,
    set: 12n,
  },
  {
    name: 'extended library split',
    gen: (m) => ({ type: 'object', properties: { str: withMaxLength({ type: 'string' }, m), separator: withMaxLength({ type: 'string' }, m) }, ...rules('self.str.split(self.separator) == []') }),
    calc: 629160n,
    setMaxElements: 10,
    set: 22n,
  },
  { name: 'extended library lowerAscii', gen: (m) => ({ ...withMaxLength({ type: 'string' }, m), ...rules("self.lowerAscii() == 'lower!'") }), calc: 314575n, setMaxElements: 10, set: 6n },
  { name: 'check cost of size call', gen: genMapWithRule('integer', 'oldSelf.size() == self.size()'), calc: 5n, setMaxElements: 10, set: 5n },
  { name: 'check cost of timestamp comparison', gen: genMapWithRule('date-time', 'self["a"] == self["b"]'), calc: 8n, setMaxElements: 7, set: 8n },
  { name: 'check cost of duration comparison', gen: genMapWithRule('duration', 'self["c"] == self["d"]'), calc: 8n, setMaxElements: 42, set: 8n },
  { name: 'enums with maxLength equals to the longest possible value', gen: genEnumWithRuleAndValues("self.contains('A')", 'A', 'B', 'C', 'LongValue'), calc: 2n, setMaxElements: 1000, set: 401n },
  { name: 'IntOrString type with quantity rule', gen: (m) => ({ 'x-kubernetes-int-or-string': true, ...max('maxLength', m), ...rules('isQuantity(self)') }), calc: 314574n, setMaxElements: 20, set: 9n },
]

function maxCost(schema: Json, isResourceRoot = false): bigint {
  const [compiled] = compileNodeRules(schema, isResourceRoot)
  assert.ok(compiled, 'one rule')
  assert.equal(compiled.error, undefined)
  return compiled.maxCost
}

describe('CRD rule cost estimates (compilation_test.go TestCostEstimation)', () => {
  for (const c of cases) {
    it(`${c.name}: calc maxLength`, () => {
      const cost = maxCost(c.gen(undefined))
      if (c.calc !== undefined) assert.equal(cost, c.calc)
      if (c.calcExceeds !== undefined) assert.ok(cost >= c.calcExceeds, `${cost} should exceed ${c.calcExceeds}`)
    })
    it(`${c.name}: set maxLength`, () => {
      assert.equal(maxCost(c.gen(c.setMaxElements)), c.set)
    })
  }

  it('bounds metadata.name and generateName (TestMetadataNameCostIsBounded)', () => {
    for (const rule of ["self.metadata.name.contains('x')", "self.metadata.generateName.contains('x')"]) {
      const cost = maxCost({ type: 'object', ...rules(rule) }, true)
      assert.ok(cost > 0n && cost <= 10000n, `${rule}: ${cost}`)
    }
  })
})
