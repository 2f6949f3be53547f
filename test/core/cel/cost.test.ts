/**
 * cel-go's static cost estimate on the engine's AST. Cases and expected ranges are cel-go's
 * `checker/cost_test.go` TestCost (those without protocol buffer messages and custom
 * estimators), with its test estimator: a hint sizes the data at a path (`input`,
 * `input.@items`) from 0 to the hint. Left out: `string(timestamp)`, which the engine does not
 * declare.
 */
import assert from 'node:assert/strict'
import { CelCostBudget, CelCostLimitError, type CostSizes, celEnvironment, compileCel } from '../../../src/core/cel/index.js'

const hinted = (hints: Record<string, number>): CostSizes => ({
  actual: false,
  size: (path) => (Object.hasOwn(hints, path.join('.')) ? { min: 0n, max: BigInt(hints[path.join('.')]!) } : undefined),
  kind: () => undefined,
})

const MAX_UINT64 = 18446744073709551615n
type Case = [name: string, expr: string, vars: Record<string, string>, hints: Record<string, number>, min: bigint, max: bigint]

const CASES: Case[] = [
  ['const', '"Hello World!"', {}, {}, 0n, 0n],
  ['identity', 'input', { input: 'list<int>' }, {}, 1n, 1n],
  ['select: map', "input['key']", { input: 'map<string, string>' }, {}, 2n, 2n],
  ['select: non-proto field test', 'has(input.testAttr.nestedAttr)', { input: 'map<string, map<string, dyn>>' }, {}, 3n, 3n],
  ['create list', '[1, 2, 3]', {}, {}, 10n, 10n],
  ['create map', '{"a": 1, "b": 2, "c": 3}', {}, {}, 30n, 30n],
  ['all comprehension', 'input.all(x, true)', { input: 'list<map<string, dyn>>' }, { input: 100 }, 2n, 302n],
  ['nested all comprehension', 'input.all(x, x.all(y, true))', { input: 'list<list<map<string, dyn>>>' }, { input: 50, 'input.@items': 10 }, 2n, 1752n],
  ['all comprehension on literal', '[1, 2, 3].all(x, true)', {}, {}, 20n, 20n],
  ['variable cost function', "input.matches('[0-9]')", { input: 'string' }, { input: 500 }, 3n, 103n],
  ['variable cost function with constant', "'123'.matches('[0-9]')", {}, {}, 2n, 2n],
  ['or', 'true || false', {}, {}, 0n, 0n],
  ['or accumulated branch cost', 'a || b || c || d', { a: 'bool', b: 'bool', c: 'bool', d: 'bool' }, {}, 1n, 4n],
  ['and', 'true && false', {}, {}, 0n, 0n],
  ['and accumulated branch cost', 'a && b && c && d', { a: 'bool', b: 'bool', c: 'bool', d: 'bool' }, {}, 1n, 4n],
  ['lt', '1 < 2', {}, {}, 1n, 1n],
  ['lte', '1 <= 2', {}, {}, 1n, 1n],
  ['eq', '1 == 2', {}, {}, 1n, 1n],
  ['gt', '2 > 1', {}, {}, 1n, 1n],
  ['gte', '2 >= 1', {}, {}, 1n, 1n],
  ['in', '2 in [1, 2, 3]', {}, {}, 13n, 13n],
  ['plus', '1 + 1', {}, {}, 1n, 1n],
  ['minus', '1 - 1', {}, {}, 1n, 1n],
  ['/', '1 / 1', {}, {}, 1n, 1n],
  ['*', '1 * 1', {}, {}, 1n, 1n],
  ['%', '1 % 1', {}, {}, 1n, 1n],
  ['ternary', 'true ? 1 : 2', {}, {}, 0n, 0n],
  ['string size', 'size("123")', {}, {}, 1n, 1n],
  ['bytes size', 'size(b"123")', {}, {}, 1n, 1n],
  ['bytes to string conversion', 'string(input)', { input: 'bytes' }, { input: 500 }, 1n, 51n],
  ['bytes to string conversion equality', 'string(input) == string(input)', { input: 'bytes' }, { input: 500 }, 3n, 152n],
  ['string to bytes conversion', 'bytes(input)', { input: 'string' }, { input: 500 }, 1n, 51n],
  ['string to bytes conversion equality', 'bytes(input) == bytes(input)', { input: 'string' }, { input: 500 }, 3n, 302n],
  ['int to string conversion', 'string(1)', {}, {}, 1n, 1n],
  ['contains', 'input.contains(arg1)', { input: 'string', arg1: 'string' }, { input: 500, arg1: 500 }, 2n, 2502n],
  ['matches', "input.matches('\\\\d+a\\\\d+b')", { input: 'string' }, { input: 500 }, 3n, 103n],
  ['startsWith', 'input.startsWith(arg1)', { input: 'string', arg1: 'string' }, { arg1: 500 }, 2n, 52n],
  ['endsWith', 'input.endsWith(arg1)', { input: 'string', arg1: 'string' }, { arg1: 500 }, 2n, 52n],
  ['size receiver', 'input.size()', { input: 'string' }, {}, 2n, 2n],
  ['size', 'size(input)', { input: 'string' }, {}, 2n, 2n],
  ['ternary eval', '(x > 2 ? input1 : input2).all(y, true)', { x: 'int', input1: 'list<map<string, dyn>>', input2: 'list<map<string, dyn>>' }, { input1: 1, input2: 1 }, 4n, 7n],
  ['comprehension over map', 'input.all(k, input[k].single_int32 > 3)', { input: 'map<string, map<string, int>>' }, { input: 10 }, 2n, 82n],
  ['comprehension over nested map of maps', 'input.all(k, input[k].all(x, true))', { input: 'map<string, map<string, dyn>>' }, { input: 5, 'input.@values': 10 }, 2n, 187n],
  ['string size of map keys', 'input.all(k, k.contains(k))', { input: 'map<string, map<string, dyn>>' }, { input: 5, 'input.@keys': 10 }, 2n, 32n],
  ['comprehension variable shadowing', 'input.all(k, input[k].all(k, true) && k.contains(k))', { input: 'map<string, map<string, dyn>>' }, { input: 2, 'input.@values': 2, 'input.@keys': 5 }, 2n, 34n],
  ['list concat', '(list1 + list2).all(x, true)', { list1: 'list<int>', list2: 'list<int>' }, { list1: 10, list2: 10 }, 4n, 64n],
  ['str concat', '"abcdefg".contains(str1 + str2)', { str1: 'string', str2: 'string' }, { str1: 10, str2: 10 }, 2n, 6n],
  ['list size comparison', 'list1.size() == list2.size()', { list1: 'list<int>', list2: 'list<int>' }, {}, 5n, 5n],
  ['list size from ternary', 'x > y ? list1.size() : list2.size()', { x: 'int', y: 'int', list1: 'list<int>', list2: 'list<int>' }, {}, 5n, 5n],
  ['list size from concat', '([x, y] + list1 + list2).size()', { x: 'int', y: 'int', list1: 'list<int>', list2: 'list<int>' }, { list1: 10, list2: 20 }, 17n, 17n],
  ['list cost tracking through comprehension', "[list1, list2].exists(l, l.exists(v, v.startsWith('hi')))", { list1: 'list<string>', list2: 'list<string>' }, { list1: 10, 'list1.@items': 64, list2: 20, 'list2.@items': 128 }, 21n, 265n],
  ['str endsWith equality', 'str1.endsWith("abcdefghijklmnopqrstuvwxyz") == str2.endsWith("abcdefghijklmnopqrstuvwxyz")', { str1: 'string', str2: 'string' }, {}, 9n, 9n],
  ['nested subexpression operators', '((5 != 6) == (1 == 2)) == ((3 <= 4) == (9 != 9))', {}, {}, 7n, 7n],
  ['timestamp equality check', 'timestamp1 == timestamp2', { timestamp1: 'google.protobuf.Timestamp', timestamp2: 'google.protobuf.Timestamp' }, {}, 3n, 3n],
  ['duration inequality check', 'duration1 != duration2', { duration1: 'google.protobuf.Duration', duration2: 'google.protobuf.Duration' }, {}, 3n, 3n],
  ['.filter list literal', '[1,2,3,4,5].filter(x, x % 2 == 0)', {}, {}, 41n, 101n],
  ['.map list literal', '[1,2,3,4,5].map(x, x)', {}, {}, 86n, 86n],
  ['.map.filter list literal', '[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)', {}, {}, 117n, 177n],
  ['.map.exists list literal', '[1,2,3,4,5].map(x, x).exists(x, x == 5) == true', {}, {}, 108n, 118n],
  ['.map.map list literal', '[1,2,3,4,5].map(x, x).map(x, x)', {}, {}, 162n, 162n],
  ['.map list literal selection', '[1,2,3,4,5].map(x, x)[4]', {}, {}, 87n, 87n],
  ['nested array selection', '[[1,2],[1,2],[1,2],[1,2],[1,2]][4]', {}, {}, 61n, 61n],
  ['nested map selection', "{'a': [1,2], 'b': [1,2], 'c': [1,2], 'd': [1,2], 'e': [1,2]}.b", {}, {}, 81n, 81n],
  ['comprehension on nested list', '[[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]].all(y, y.all(y, y == 1))', {}, {}, 76n, 136n],
  ['comprehension on transformed nested list', '[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))', {}, {}, 157n, 217n],
  ['comprehension on nested literal list', '["a", "ab", "abc", "abcd", "abcde"].map(x, [x, x]).all(y, y.all(y, y.startsWith(\'a\')))', {}, {}, 157n, 217n],
  ['comprehension chaining with concat', '[1,2,3,4,5].map(x, x).map(x, x) + [1]', {}, {}, 173n, 173n],
  ['nested comprehension', '[1,2,3].all(i, i in [1,2,3].map(j, j + j))', {}, {}, 20n, 230n],
  ['nested dyn comprehension', 'dyn([1,2,3]).all(i, i in dyn([1,2,3]).map(j, j + j))', {}, {}, 21n, 234n],
  ['literal map access', "{'hello': 'hi'}['hello'] != {'hello': 'bye'}['hello']", {}, {}, 63n, 63n],
  ['literal list access', "['hello', 'hi'][0] != ['hello', 'bye'][1]", {}, {}, 23n, 23n],
  ['type call', 'type(1)', {}, {}, 1n, 1n],
  ['type call variable', 'type(self.val1)', { self: 'map<string, int>' }, {}, 3n, 3n],
  ['type call variable equality', 'type(self.val1) == int', { self: 'map<string, int>' }, {}, 5n, 1844674407370955268n],
  ['type literal equality cost', 'type(1) == int', {}, {}, 3n, 1844674407370955266n],
]

describe('core/cel: static cost estimate (cel-go checker/cost_test.go)', () => {
  for (const [name, expr, vars, hints, min, max] of CASES) {
    it(`${name}: ${expr}`, () => {
      const program = compileCel(celEnvironment(vars), expr)
      // cel-go's default: has() costs 1 (the reference's environments turn it off).
      assert.deepEqual(program.estimateCost(hinted(hints), { presenceTestHasCost: true }), { min, max })
    })
  }

  it('is unbounded for unbounded data', () => {
    const program = compileCel(celEnvironment({ input: 'list<string>' }), "input.all(x, x.matches('[a-z]+'))")
    assert.equal(program.estimateCost().max, MAX_UINT64)
  })
})

describe('core/cel: runtime cost, the per-call limit and a budget', () => {
  // cel-go interpreter/runtimecost_test.go: `input.matches('[0-9]')` on 'abc' costs ceil(4 * 0.1) * ceil(5 * 0.25) + 1 = 3,
  // `input.startsWith(arg1)` with 'idc' and a 500-character prefix 1 + 1 + ceil(500 * 0.1).
  it('prices an evaluation with the sizes of its values', () => {
    const env = celEnvironment({ input: 'string', arg1: 'string' })
    assert.equal(compileCel(env, "input.matches('[0-9]')").actualCost({ input: 'abc' }), 3n)
    assert.equal(compileCel(env, 'input.contains(arg1)').actualCost({ input: 'a'.repeat(500), arg1: 'b'.repeat(500) }), 2502n)
  })

  it('prices each evaluation by its own values (costs are remembered by the sizes read)', () => {
    const program = compileCel(celEnvironment({ input: 'string' }), "input.matches('[0-9]')")
    // ceil(501 * 0.1) * ceil(5 * 0.25) + 1
    assert.deepEqual([program.actualCost({ input: 'abc' }), program.actualCost({ input: 'a'.repeat(500) }), program.actualCost({ input: 'abc' })], [3n, 103n, 3n])
  })

  it('refuses an evaluation over the cost limit with cel-go\'s error', () => {
    const env = celEnvironment({ input: 'list<string>' })
    const program = compileCel(env, "input.all(x, x.matches('^[a-z]+$'))", ['bool'], { costLimit: 1000000n })
    assert.equal(program.evaluate({ input: ['abc'] }), true)
    const many = Array.from({ length: 50000 }, () => 'a'.repeat(100))
    assert.throws(() => program.evaluate({ input: many }), (err: unknown) => err instanceof CelCostLimitError && err.message === 'operation cancelled: actual cost limit exceeded')
  })

  it('charges evaluations to a shared budget', () => {
    const program = compileCel(celEnvironment({ input: 'string' }), 'input.contains("x")')
    const budget = new CelCostBudget(10n, 3n)
    assert.equal(budget.charge(program, { input: 'abc' }), 'ok') // 1 + ceil(0.3) * ceil(0.1) = 2
    assert.equal(budget.remaining, 8n)
    assert.equal(budget.charge(program, { input: 'a'.repeat(40) }), 'limit') // 1 + 4 * 1 = 5 > 3
    assert.equal(budget.remaining, -1n)
    assert.equal(new CelCostBudget(1n).charge(program, { input: 'abc' }), 'budget')
  })
})

describe('core/cel: cost tracked as an expression runs (cel-go interpreter/runtimecost_test.go)', () => {
  const abc = (n: number) => 'abcdefghij'.repeat(n / 10)
  const CASES: [string, string, Record<string, string>, Record<string, unknown>, bigint][] = [
    ['const', '"Hello World!"', {}, {}, 0n],
    ['identity', 'input', { input: 'list<int>' }, { input: [1n, 2n] }, 1n],
    ['select: map', "input['key']", { input: 'map<string, string>' }, { input: { key: 'v' } }, 2n],
    ['select: array index', 'input[0]', { input: 'list<string>' }, { input: ['v'] }, 2n],
    ['expr select: map', "input['ke' + 'y']", { input: 'map<string, string>' }, { input: { key: 'v' } }, 3n],
    ['expr select: array index', 'input[3-3]', { input: 'list<string>' }, { input: ['v'] }, 3n],
    ['variable cost function', "input.matches('[0-9]')", { input: 'string' }, { input: abc(500) }, 103n],
    ['variable cost function with constant', "'123'.matches('[0-9]')", {}, {}, 2n],
    ['or', 'false || false', {}, {}, 0n],
    ['or short-circuit', 'true || false', {}, {}, 0n],
    ['or accumulated branch cost', 'a || b || c || d', { a: 'bool', b: 'bool', c: 'bool', d: 'bool' }, { a: false, b: false, c: false, d: false }, 4n],
    ['and short-circuit', 'false && true', {}, {}, 0n],
    ['and accumulated branch cost', 'a && b && c && d', { a: 'bool', b: 'bool', c: 'bool', d: 'bool' }, { a: true, b: true, c: true, d: true }, 4n],
    ['lt', '1 < 2', {}, {}, 1n],
    ['eq', '1 == 2', {}, {}, 1n],
    ['plus', '1 + 1', {}, {}, 1n],
  ]
  for (const [name, expr, vars, activation, want] of CASES) {
    it(`${name}: ${expr}`, () => assert.equal(compileCel(celEnvironment(vars), expr).evaluateWithCost(activation).cost, want))
  }

  it('charges the optional accessors as calls (the library makes them macros)', () => {
    // input 1, `_?._` 1, orValue 1, and the equality of two empty strings 0.
    const program = compileCel(celEnvironment({ input: 'map<string, string>' }), "input.?a.orValue('') == ''")
    assert.equal(program.evaluateWithCost({ input: { b: 'x' } }).cost, 3n)
  })

  it('charges only the side of a short-circuit that ran', () => {
    const program = compileCel(celEnvironment({ a: 'bool', b: 'bool', c: 'bool', d: 'bool' }), 'a || b || c || d')
    assert.equal(program.evaluateWithCost({ a: true, b: false, c: false, d: false }).cost, 1n)
  })

  it('stops an evaluation past its limit, and a budget charges what ran', () => {
    const program = compileCel(celEnvironment({ input: 'list<string>' }), "input.all(x, x.matches('^[a-z]+$'))")
    const many = Array.from({ length: 50000 }, () => 'a'.repeat(100))
    const stopped = program.evaluateWithCost({ input: many }, 1000000n)
    assert.ok(stopped.error instanceof CelCostLimitError && stopped.cost > 1000000n && stopped.cost < 1000100n, String(stopped.cost))
    const budget = new CelCostBudget(100n, 50n)
    // input 1, result 1, each element 3 + x 1 + matches ceil((3 + 1) * 0.1) * ceil(8 * 0.25) = 6.
    assert.deepEqual(budget.evaluate(program, { input: ['abc', 'de'] }), { outcome: 'ok', value: true })
    assert.equal(budget.remaining, 86n)
    // One string of 300: matches costs ceil(301 * 0.1) * 2 = 62, past the per-call limit of 50.
    assert.deepEqual(budget.evaluate(program, { input: ['a'.repeat(300)] }), { outcome: 'limit' })
    assert.equal(budget.remaining, -1n)
  })

  it('charges a budget the same whether an evaluation ran tracked or, bounded below what is left, untracked', () => {
    const program = compileCel(celEnvironment({ input: 'list<string>' }), "input.all(x, x.matches('^[a-z]+$'))")
    const tracked = { actualCost: program.actualCost, evaluateWithCost: program.evaluateWithCost }
    for (const subject of [program, tracked]) {
      // Each evaluation costs 14 (above): the second does not fit in what the first leaves of 20.
      const budget = new CelCostBudget(20n, 50n)
      assert.deepEqual(budget.evaluate(subject, { input: ['abc', 'de'] }), { outcome: 'ok', value: true })
      assert.deepEqual(budget.evaluate(subject, { input: ['abc', 'de'] }), { outcome: 'budget' })
      assert.equal(budget.remaining, -1n)
      const roomy = new CelCostBudget(100n, 50n)
      for (let i = 0; i < 3; i++) assert.deepEqual(roomy.evaluate(subject, { input: ['abc', 'de'] }), { outcome: 'ok', value: true })
      assert.equal(roomy.remaining, 58n)
      assert.equal(roomy.exhausted, false)
    }
  })
})
