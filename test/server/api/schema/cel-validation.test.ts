/**
 * Custom resources against their `x-kubernetes-validations` rules. The cases are the
 * reference's: apiextensions-apiserver `pkg/apiserver/schema/cel/validation_test.go`
 * (TestValidationExpressions: a rule valid on an object, or failing with an error that contains
 * the given text), and the field errors of `validation.go` (validateExpressions,
 * fieldErrorForReason, ruleMessageOrDefault, evalMessageExpression, hasBlockingErr).
 */
import assert from 'node:assert/strict'
import { compileRuleTree } from '../../../../src/server/api/schema/cel-rules.js'
import { validateCelRules } from '../../../../src/server/api/schema/cel-validation.js'
import { validateCustomResource, validateCustomResourceStatus } from '../../../../src/server/api/schema/custom-resource.js'
import { Path } from '../../../../src/server/api/validation/field/index.js'

type Json = Record<string, unknown>

const integerType: Json = { type: 'integer' }
const numberType: Json = { type: 'number' }
const stringType: Json = { type: 'string' }
const booleanType: Json = { type: 'boolean' }
const objectType = (properties: Record<string, Json>): Json => ({ type: 'object', properties })
const listType = (items: Json): Json => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' })
const listSetType = (items: Json): Json => ({ type: 'array', items, 'x-kubernetes-list-type': 'set' })
const listMapType = (keys: string[], items: Json): Json => ({ type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys })
const mapType = (values: Json): Json => ({ type: 'object', additionalProperties: values })
const objs = (...vals: unknown[]): Json => Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v]))
const schemas = (...ss: Json[]): Json => objectType(Object.fromEntries(ss.map((s, i) => [`val${i + 1}`, s])))
const eq = (a: string, b: string, literal: string): string => `${a} == ${literal} && ${literal} == ${a} && ${a} == ${b}`

/** The rule on the schema's root, evaluated at `root` as the reference's test does. */
function errorsFor(schema: Json, rule: string | Json, obj: unknown, old?: unknown): string[] {
  const withRule = { ...schema, 'x-kubernetes-validations': [typeof rule === 'string' ? { rule } : rule] }
  return validateCelRules(compileRuleTree(withRule, false), withRule, Path.of('root'), obj, old, false).map(String)
}

interface Case {
  name: string
  schema: Json
  obj: Json
  valid: string[]
  errors?: Record<string, string>
}

const CASES: Case[] = [
  {
    name: 'integers',
    obj: objs(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 2147483647, 2147483647),
    schema: schemas(integerType, integerType, { type: 'integer', format: 'int32' }, { type: 'integer', format: 'int32' }),
    valid: [eq('self.val1', 'self.val2', String(Number.MAX_SAFE_INTEGER)), eq('self.val3', 'self.val4', '2147483647'), 'type(self.val1) == int', 'self.val3 + 1 == 2147483647 + 1', 'type(self.val3) == int'],
    errors: { 'self.val1 + 9223372036854775807 == 0': 'integer overflow', '1 / 0 == 1 / 0': 'division by zero' },
  },
  {
    name: 'numbers',
    obj: objs(1.5, 1.5, 1),
    schema: schemas(numberType, numberType, numberType),
    valid: [eq('self.val1', 'self.val2', '1.5'), 'type(self.val1) == double', 'type(self.val3) == double', 'self.val3 == 1.0'],
  },
  {
    name: 'unicode strings',
    obj: objs('Rook takes 👑', 'Rook takes 👑'),
    schema: schemas(stringType, stringType),
    valid: [
      eq('self.val1', 'self.val2', "'Rook takes 👑'"),
      "self.val1.startsWith('Rook')",
      "!self.val1.startsWith('knight')",
      "self.val1.contains('takes')",
      "self.val1.endsWith('👑')",
      "self.val1.matches('^[^0-9]*$')",
      'type(self.val1) == string',
      'size(self.val1) == 12',
      "self.val1.charAt(3) == 'k'",
      "self.val1.indexOf('o') == 1",
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']",
      "self.val1.substring(0, 4) == 'Rook'",
      "self.val1.upperAscii() == 'ROOK TAKES 👑'",
    ],
  },
  {
    name: 'booleans',
    obj: objs(true, true, false, false),
    schema: schemas(booleanType, booleanType, booleanType, booleanType),
    valid: [eq('self.val1', 'self.val2', 'true'), eq('self.val3', 'self.val4', 'false'), 'self.val1 != self.val4', 'type(self.val1) == bool'],
  },
  {
    name: 'lists',
    obj: objs([1, 2, 3], [1, 2, 3]),
    schema: schemas(listType(integerType), listType(integerType)),
    valid: [eq('self.val1', 'self.val2', '[1, 2, 3]'), '1 in self.val1', 'self.val2[0] in self.val1', '!(0 in self.val1)', 'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]', 'self.val1 + [4, 5] == [1, 2, 3, 4, 5]'],
  },
  {
    name: 'maps',
    obj: objs({ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }),
    schema: schemas(mapType(stringType), mapType(stringType)),
    valid: ['self.val1 == self.val2', "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}"],
  },
  {
    name: 'object access',
    obj: { a: { b: 1, d: null }, a1: { b1: { c1: 4 } }, a3: {} },
    schema: objectType({
      a: objectType({ b: integerType, c: integerType, d: { ...integerType, nullable: true } }),
      a1: objectType({ b1: objectType({ c1: integerType }), d2: objectType({ e2: integerType }) }),
    }),
    valid: ['has(self.a.b)', '!has(self.a.c)', '!has(self.a.d)', 'has(self.a1.b1.c1)', '!(has(self.a1.d2) && has(self.a1.d2.e2))', '!has(self.a1.d2)'],
    // Not here: `has(self.a.z)` compiles in the engine (docs/cel.md, known differences).
    errors: { 'self.a.z == 1': "undefined field 'z'", 'has(self.a1.d2.e2)': 'no such key: d2' },
  },
  {
    name: 'map access',
    obj: { val: { b: 1, d: 2 } },
    schema: objectType({ val: mapType(integerType) }),
    valid: [
      "!('a' in self.val)",
      "'b' in self.val",
      'self.val.all(k, self.val[k] > 0)',
      'self.val.exists(k, self.val[k] > 1)',
      'self.val.exists_one(k, self.val[k] == 2)',
      '!self.val.exists(k, self.val[k] > 2)',
      'size(self.val) == 2',
      'self.val.map(k, self.val[k]).exists(v, v == 1)',
      'size(self.val.filter(k, self.val[k] > 1)) == 1',
    ],
    errors: { "self.val['c'] == 1": 'no such key: c' },
  },
  {
    name: 'listMap access',
    obj: { listMap: [{ k: 'a1', v: 'b1' }, { k: 'a2', v: 'b2' }, { k: 'a3', v: 'b3', v2: 'z' }] },
    schema: objectType({ listMap: listMapType(['k'], objectType({ k: stringType, v: stringType, v2: stringType })) }),
    // Not here: `has(self.listMap[0].v)`, which the engine's has() refuses (docs/cel.md).
    valid: [
      "self.listMap.all(m, m.k.startsWith('a'))",
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')",
      "self.listMap.exists(m, m.k.endsWith('1'))",
      "self.listMap.exists_one(m, m.k == 'a3')",
      "!self.listMap.all(m, m.k.endsWith('1'))",
      "size(self.listMap.filter(m, m.k == 'a1')) == 1",
    ],
  },
  {
    name: 'escaping',
    obj: { if: 12, _true: 301, 'dot.dot': 401, 'dash-dash': 402, 'slash/slash': 403, underscore_underscore: 404, 'doubleunderscore__doubleunderscore': 405 },
    schema: objectType({ if: integerType, _true: integerType, 'dot.dot': integerType, 'dash-dash': integerType, 'slash/slash': integerType, underscore_underscore: integerType, 'doubleunderscore__doubleunderscore': integerType }),
    valid: [
      'self.__if__ == 12',
      'self._true == 301',
      'self.dot__dot__dot == 401',
      'self.dash__dash__dash == 402',
      'self.slash__slash__slash == 403',
      'self.underscore_underscore == 404',
      'self.doubleunderscore__underscores__doubleunderscore == 405',
    ],
    errors: { 'self.__illegal__ == 301': "undefined field '__illegal__'" },
  },
  {
    name: 'map keys are not escaped',
    obj: { m: { '@': 1, '9': 2, int: 3, './-': 4, '👑': 5 } },
    schema: objectType({ m: mapType(integerType) }),
    valid: ["self.m['@'] == 1", "self.m['9'] == 2", "self.m['int'] == 3", "self.m['./-'] == 4", "self.m['👑'] == 5"],
  },
  {
    name: 'container type composition',
    obj: {
      obj: { field: 'a' },
      mapOfMap: { x: { y: 'b' } },
      mapOfObj: { k: { field2: 'c' } },
      mapOfList: { l: ['e'] },
      listOfMap: [{ z: 'g' }],
      listOfObj: [{ field3: 'h' }],
    },
    schema: objectType({
      obj: objectType({ field: stringType }),
      mapOfMap: mapType(mapType(stringType)),
      mapOfObj: mapType(objectType({ field2: stringType })),
      mapOfList: mapType(listType(stringType)),
      listOfMap: listType(mapType(stringType)),
      listOfObj: listType(objectType({ field3: stringType })),
    }),
    valid: ["self.obj.field == 'a'", "self.mapOfMap['x']['y'] == 'b'", "self.mapOfObj['k'].field2 == 'c'", "self.mapOfList['l'][0] == 'e'", "self.listOfMap[0]['z'] == 'g'", "self.listOfObj[0].field3 == 'h'"],
  },
]

describe('custom resource validation rules (x-kubernetes-validations)', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      for (const rule of c.valid) {
        it(`valid: ${rule}`, () => assert.deepEqual(errorsFor(c.schema, rule, c.obj), []))
      }
      for (const [rule, contains] of Object.entries(c.errors ?? {})) {
        it(`error: ${rule}`, () => {
          const errs = errorsFor(c.schema, rule, c.obj)
          assert.ok(errs.length > 0, 'expected validation errors but got none')
          for (const e of errs) assert.ok(e.includes(contains) && e.includes('Invalid value'), `expected error to contain '${contains}', but got: ${e}`)
        })
      }
    })
  }
})

/** A CRD-like root schema with rules at `spec` (the reference's error texts of validation.go). */
function specSchema(rules: Json[], spec: Json = objectType({ replicas: integerType, minReplicas: integerType, name: stringType })): Json {
  return objectType({ apiVersion: stringType, kind: stringType, metadata: { type: 'object' }, spec: { ...spec, 'x-kubernetes-validations': rules } })
}

function crErrors(schema: Json, o: Json, old?: Json): string[] {
  return validateCustomResource(schema, o, undefined, old, compileRuleTree(schema)).map((c) => `${c.field}: ${c.message}`)
}

const cr = (spec: Json): Json => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec })

describe('custom resource validation rules: the field errors', () => {
  it('a failing rule without a message: failed rule: <rule>, the object value omitted', () => {
    assert.deepEqual(crErrors(specSchema([{ rule: 'self.minReplicas <= self.replicas' }]), cr({ replicas: 1, minReplicas: 3 })), ['spec: Invalid value: failed rule: self.minReplicas <= self.replicas'])
  })
  it('passes when the rule is true', () => {
    assert.deepEqual(crErrors(specSchema([{ rule: 'self.minReplicas <= self.replicas' }]), cr({ replicas: 3, minReplicas: 1 })), [])
  })
  it('message (trimmed) replaces the default', () => {
    assert.deepEqual(crErrors(specSchema([{ rule: 'self.minReplicas <= self.replicas', message: ' replicas should be greater than or equal to minReplicas. ' }]), cr({ replicas: 1, minReplicas: 3 })), [
      'spec: Invalid value: replicas should be greater than or equal to minReplicas.',
    ])
  })
  it('messageExpression wins over message; an empty one falls back to message', () => {
    const schema = specSchema([
      { rule: 'self.minReplicas <= self.replicas', message: 'm', messageExpression: "'minReplicas ' + string(self.minReplicas) + ' above ' + string(self.replicas)" },
      { rule: 'self.replicas < 0', message: 'fallback', messageExpression: "'  '" },
    ])
    assert.deepEqual(crErrors(schema, cr({ replicas: 1, minReplicas: 3 })), ['spec: Invalid value: minReplicas 3 above 1', 'spec: Invalid value: fallback'])
  })
  it('a scalar node shows its value; reason and fieldPath choose the error and the field', () => {
    const schema = specSchema([], objectType({
      replicas: { ...integerType, 'x-kubernetes-validations': [{ rule: 'self < 10' }] },
      name: { ...stringType, 'x-kubernetes-validations': [{ rule: "self != 'bad'", reason: 'FieldValueForbidden', message: 'bad name' }] },
      sub: { ...objectType({ a: stringType }), 'x-kubernetes-validations': [
        { rule: 'self.a != "x"', reason: 'FieldValueRequired', fieldPath: '.a', message: 'a needed' },
        { rule: 'self.a != "x"', reason: 'FieldValueDuplicate', fieldPath: ".a" },
      ] },
    }))
    assert.deepEqual(crErrors(schema, cr({ replicas: 12, name: 'bad', sub: { a: 'x' } })), [
      'spec.replicas: Invalid value: 12: failed rule: self < 10',
      'spec.name: Forbidden: bad name',
      'spec.sub.a: Required value: a needed',
      // Duplicate names the value, which an object's rule omits.
      'spec.sub.a: Duplicate value',
    ])
  })
  it('rules inside items and additionalProperties are evaluated at each element', () => {
    const schema = specSchema([], objectType({
      list: listType({ ...integerType, 'x-kubernetes-validations': [{ rule: 'self > 0' }] }),
      labels: mapType({ ...stringType, 'x-kubernetes-validations': [{ rule: 'self.size() < 3', message: 'too long' }] }),
    }))
    assert.deepEqual(crErrors(schema, cr({ list: [1, -1], labels: { a: 'ok', b: 'long' } })), ['spec.list[1]: Invalid value: -1: failed rule: self > 0', 'spec.labels[b]: Invalid value: "long": too long'])
  })
  it('an evaluation error names the rule', () => {
    assert.deepEqual(crErrors(specSchema([{ rule: 'self.replicas / 0 == 1' }]), cr({ replicas: 1 })), ['spec: Invalid value: "object": division by zero evaluating rule: self.replicas / 0 == 1'])
  })
  it('an overload only found wrong at run time (int-or-string is dyn) names the rule', () => {
    const schema = specSchema([{ rule: 'self.port > 1' }], objectType({ port: { 'x-kubernetes-int-or-string': true } }))
    assert.deepEqual(crErrors(schema, cr({ port: 'http' })), ["spec: Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.port > 1"])
  })
  it('a schema error that blocks: the rules are not checked', () => {
    assert.deepEqual(crErrors(specSchema([{ rule: 'self.replicas > 5' }]), cr({ replicas: 'x' })), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ])
  })
})

describe('custom resource validation rules: transition rules (oldSelf)', () => {
  const immutable = specSchema([{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }])
  it('are skipped on create', () => assert.deepEqual(crErrors(immutable, cr({ name: 'a' })), []))
  it('refuse a bad transition on update', () => {
    assert.deepEqual(crErrors(immutable, cr({ name: 'b' }), cr({ name: 'a' })), ['spec: Invalid value: name is immutable'])
    assert.deepEqual(crErrors(immutable, cr({ name: 'a' }), cr({ name: 'a' })), [])
  })
  it('are skipped where the old object has no value there', () => {
    assert.deepEqual(crErrors(immutable, cr({ name: 'b' }), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }), [])
  })
  it('optionalOldSelf: oldSelf is an optional, evaluated on create too', () => {
    const schema = specSchema([{ rule: "oldSelf.hasValue() || self.name == 'first'", optionalOldSelf: true, message: 'must start as first' }])
    assert.deepEqual(crErrors(schema, cr({ name: 'x' })), ['spec: Invalid value: must start as first'])
    assert.deepEqual(crErrors(schema, cr({ name: 'first' })), [])
    assert.deepEqual(crErrors(schema, cr({ name: 'x' }), cr({ name: 'first' })), [])
  })
  it('map-list items are correlated by their keys', () => {
    const schema = specSchema([], objectType({
      ports: listMapType(['name'], { ...objectType({ name: stringType, port: integerType }), 'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'port may not decrease' }] }),
    }))
    const old = cr({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 90 }] })
    assert.deepEqual(crErrors(schema, cr({ ports: [{ name: 'b', port: 80 }, { name: 'a', port: 81 }, { name: 'c', port: 1 }] }), old), ['spec.ports[0]: Invalid value: port may not decrease'])
  })
  it('the status update evaluates the rules over the whole object', () => {
    const schema = objectType({ spec: objectType({ max: integerType }), status: { ...objectType({ count: integerType }), 'x-kubernetes-validations': [{ rule: 'self.count >= oldSelf.count', message: 'count may not decrease' }] } })
    const errs = validateCustomResourceStatus(schema, { spec: { max: 1 }, status: { count: 1 } }, undefined, { spec: { max: 1 }, status: { count: 2 } }, compileRuleTree(schema))
    assert.deepEqual(errs.map((c) => `${c.field}: ${c.message}`), ['status: Invalid value: count may not decrease'])
  })
})

describe('custom resource validation rules: ratcheting (CRDValidationRatcheting)', () => {
  const schema = specSchema([{ rule: 'self.minReplicas <= self.replicas' }, { rule: 'self.name == oldSelf.name', message: 'name is immutable' }])
  const bad = cr({ replicas: 1, minReplicas: 3, name: 'a' })
  it('an unchanged failing value passes an update; a transition rule is not ratcheted', () => {
    assert.deepEqual(crErrors(schema, bad, bad), [])
    assert.deepEqual(crErrors(schema, cr({ replicas: 2, minReplicas: 3, name: 'a' }), bad), ['spec: Invalid value: failed rule: self.minReplicas <= self.replicas'])
  })
  it('a changed sibling does not ratchet the rules of the parent', () => {
    const nested = specSchema([], objectType({ a: { ...integerType, 'x-kubernetes-validations': [{ rule: 'self > 5' }] }, b: integerType }))
    assert.deepEqual(crErrors(nested, cr({ a: 1, b: 2 }), cr({ a: 1, b: 1 })), [])
    assert.deepEqual(crErrors(nested, cr({ a: 2, b: 2 }), cr({ a: 1, b: 1 })), ['spec.a: Invalid value: 2: failed rule: self > 5'])
  })
})
