/**
 * The estimated cost of rules against the schemas of the reference's cost-stability test
 * (apiextensions-apiserver `pkg/apiserver/schema/cel/celcoststability_test.go`,
 * TestCelEstimatedCostStability): the numbers a CRD's rules are held to must not drift. Left
 * out: rules on `format: byte`, `duration`, `date` and `date-time` fields (the engine types
 * them as strings), `has()` of an indexed element (the engine refuses it), and the two-variable
 * macros it does not have.
 */
import assert from 'node:assert/strict'
import { compileNodeRules } from '../../../../src/server/api/schema/cel-rules.js'

type Json = Record<string, unknown>

const integerType: Json = { type: 'integer' }
const numberType: Json = { type: 'number' }
const stringType: Json = { type: 'string' }
const booleanType: Json = { type: 'boolean' }
const arrayType = (listType: string, items: Json, keys?: string[]): Json => ({ type: 'array', items, 'x-kubernetes-list-type': listType, ...(keys ? { 'x-kubernetes-list-map-keys': keys } : {}) })
const listType = (items: Json) => arrayType('atomic', items)
const listSetType = (items: Json) => arrayType('set', items)
const listMapType = (keys: string[], items: Json) => arrayType('map', items, keys)
const mapType = (values: Json): Json => ({ type: 'object', additionalProperties: values })
const objectType = (properties: Record<string, Json>): Json => ({ type: 'object', properties })
const schemas = (...ss: Json[]): Json => objectType(Object.fromEntries(ss.map((s, i) => [`val${i + 1}`, s])))
const valsEqual = (v1: string, v2: string, literal: string) => `${v1} == ${literal} && ${literal} == ${v1} && ${v1} == ${v2}`

const CASES: [string, Json, Record<string, number>][] = [
  ['integers', schemas(integerType, integerType, integerType, integerType, integerType, integerType), { [valsEqual('self.val1', 'self.val2', '9223372036854775807')]: 8, 'self.val1 == self.val6': 4, 'type(self.val1) == int': 4, 'self.val3 + 1 == 2147483647 + 1': 5 }],
  ['numbers', schemas(numberType, numberType, numberType, numberType, numberType, numberType, numberType), { 'self.val1 == self.val6': 4, 'type(self.val1) == double': 4, 'self.val7 == 1.0': 2 }],
  ['numeric comparisons', schemas(integerType, numberType, numberType, numberType), { 'double(self.val1) < self.val4': 6, 'self.val1 < int(self.val4)': 6, 'double(5) < 10.0': 2, '5 < int(10.0)': 2, 'double(self.val1) < 10.0': 4 }],
  [
    'unicode strings',
    schemas(stringType, stringType),
    {
      [valsEqual('self.val1', 'self.val2', "'Rook takes 👑'")]: 314585,
      "self.val1.startsWith('Rook')": 3,
      "!self.val1.startsWith('knight')": 4,
      "self.val1.matches('^[^0-9]*$')": 943721,
      "!self.val1.matches('^[0-9]*$')": 629149,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 314576,
      "self.val1.indexOf('o', 2) == 2": 314576,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 629150,
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'": 629150,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 629159,
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']": 629159,
      "self.val1.substring(5) == 'takes 👑'": 314576,
      "self.val1.substring(0, 4) == 'Rook'": 314576,
      "self.val1.substring(4, 10).trim() == 'takes'": 629149,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 314577,
      "self.val1.lowerAscii() == 'rook takes 👑'": 314577,
      'self.val1.lowerAscii() == self.val1.lowerAscii()': 943723,
    },
  ],
  ['escaped strings', schemas(stringType, stringType), { [valsEqual('self.val1', 'self.val2', "'l1\\nl2'")]: 314583, "self.val1 == '''l1\nl2'''": 3 }],
  ['booleans', schemas(booleanType, booleanType, booleanType, booleanType), { [valsEqual('self.val1', 'self.val2', 'true')]: 8, 'self.val1 != self.val4': 4, 'type(self.val1) == bool': 4 }],
  ['enums', objectType({ enumStr: { type: 'string', enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] } }), { "self.enumStr == 'Pending'": 3, "self.enumStr in ['Pending', 'Available']": 14 }],
  ['conversions', schemas(integerType, numberType, numberType, numberType, booleanType, stringType), { 'int(self.val2) == self.val1': 5, 'double(self.val1) == self.val2': 5, 'string(self.val1) == self.val6': 314578, "string(self.val4) == '10.5'": 4 }],
  [
    'lists',
    schemas(listType(integerType), listType(integerType)),
    {
      [valsEqual('self.val1', 'self.val2', '[1, 2, 3]')]: 157317,
      '1 in self.val1': 1572865,
      'self.val2[0] in self.val1': 1572868,
      '!(0 in self.val1)': 1572866,
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 16,
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 24,
      'has(self.val1)': 1,
      'has(self.val1) && has(self.val2)': 2,
      '!has(self.val1)': 2,
      'self.val1.all(k, size(self.val1) > 0)': 11010044,
      'self.val1.exists_one(k, self.val1 == [2])': 23592949,
      '!self.val1.exists_one(k, size(self.val1) > 0)': 9437183,
      'size(self.val1) == 2': 4,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 26738686,
    },
  ],
  [
    'listSets',
    schemas(listSetType(stringType), listSetType(stringType)),
    {
      "self.val1 == ['c', 'b', 'a']": 13,
      'self.val1 == self.val2': 104862,
      "'a' in self.val1": 1048577,
      'self.val2[0] in self.val1': 1048580,
      "!('x' in self.val1)": 1048578,
      "self.val1 + self.val2 == ['a', 'b', 'c']": 16,
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']": 24,
      'self.val1.all(k, size(self.val1) > 0)': 7340028,
      "self.val1.exists_one(k, self.val1 == ['a'])": 15728629,
      '!self.val1.exists_one(k, size(self.val1) > 0)': 6291455,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 17825790,
    },
  ],
  [
    'listMaps',
    objectType({ objs: listType(listMapType(['k'], objectType({ k: stringType, v: stringType }))) }),
    {
      'self.objs[0] == self.objs[1]': 104864,
      'self.objs[0] + self.objs[2] == self.objs[2]': 104868,
      'self.objs[0] == [self.objs[0][0], self.objs[0][1]]': 22,
      'self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]': 104883,
      'size(self.objs[0] + [self.objs[3][0]]) == 3': 20,
      'has(self.objs)': 1,
      'self.objs[0].all(k, size(self.objs[0]) > 0)': 8388604,
      'self.objs[0].exists_one(k, size(self.objs[0]) > 0)': 7340030,
      'size(self.objs[0]) == 2': 5,
      'size(self.objs[0].filter(k, size(self.objs[0]) > 1)) == 1': 18874366,
    },
  ],
  [
    'maps',
    schemas(mapType(stringType), mapType(stringType)),
    {
      'self.val1 == self.val2': 39326,
      "'k1' in self.val1": 3,
      "!('k3' in self.val1)": 4,
      "self.val1 == {'k1': 'a', 'k2': 'b'}": 33,
      'self.val1.all(k, size(self.val1) > 0)': 2752508,
      'self.val1.exists_one(k, size(self.val1) > 0)': 2359294,
      'size(self.val1.filter(k, size(self.val1) > 1)) == 1': 6684670,
    },
  ],
  ['objects', objectType({ objs: listType(objectType({ f1: stringType, f2: stringType })) }), { 'self.objs[0] == self.objs[1]': 6 }],
  [
    'object access',
    objectType({ a: objectType({ b: integerType, c: integerType, d: { type: 'integer', nullable: true } }), a1: objectType({ b1: objectType({ c1: integerType }), d2: objectType({ e2: integerType }) }) }),
    { 'has(self.a.b)': 2, 'has(self.a1.b1.c1)': 3, '!(has(self.a1.d2) && has(self.a1.d2.e2))': 6, '!has(self.a1.d2)': 3, 'has(self.a)': 1, 'has(self.a) && has(self.a1)': 2, '!has(self.a)': 2 },
  ],
  [
    'map access',
    objectType({ val: mapType(integerType) }),
    {
      "!('a' in self.val)": 4,
      "'b' in self.val": 3,
      '!has(self.val.a)': 3,
      'has(self.val.b)': 2,
      'self.val.all(k, self.val[k] > 0)': 3595115,
      'self.val.exists_one(k, self.val[k] == 2)': 2696338,
      '!self.val.exists_one(k, self.val[k] > 0)': 3145728,
      'size(self.val) == 2': 4,
      'size(self.val.filter(k, self.val[k] > 1)) == 1': 8089017,
    },
  ],
  [
    'listMap access',
    objectType({ listMap: listMapType(['k'], objectType({ k: stringType, v: stringType, v2: stringType })) }),
    {
      "self.listMap.all(m, m.k.startsWith('a'))": 6291453,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 8388603,
      "self.listMap.exists(m, m.k.endsWith('1'))": 7340028,
      "self.listMap.exists_one(m, m.k == 'a3')": 5242879,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 16777215,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 10485753,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 19922939,
    },
  ],
]

describe('CRD rule cost estimates (celcoststability_test.go TestCelEstimatedCostStability)', () => {
  for (const [name, schema, expected] of CASES) {
    for (const [rule, cost] of Object.entries(expected)) {
      it(`${name}: ${rule}`, () => {
        const [compiled] = compileNodeRules({ ...schema, 'x-kubernetes-validations': [{ rule }] }, false)
        assert.equal(compiled?.error, undefined)
        assert.equal(compiled?.maxCost, BigInt(cost))
      })
    }
  }
})
