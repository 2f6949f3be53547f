/**
 * The estimated cost of the Kubernetes libraries' functions: the cases and expected ranges of
 * the reference's `apiserver/pkg/cel/library/cost_test.go` (TestListsCost, TestIndexOfCost,
 * TestURLsCost, TestIPCost, TestCIDRCost, TestStringLibrary, TestQuantityCost, TestSemverCost),
 * with its test estimator: a string or bytes whose size the expression does not tell is 0 to 12
 * long. (Its runtime costs are for programs without the constant folding the reference's
 * environments use, so they are not the ones charged here.) Left out: `==` between URLs, IPs,
 * CIDRs and quantities, which the engine does not declare.
 */
import assert from 'node:assert/strict'
import { type CostSizes, celEnvironment, compileCel } from '../../../src/core/cel/index.js'

const byType: CostSizes = {
  actual: false,
  size: () => undefined,
  kind: () => undefined,
  typeSize: (kind) => (kind === 'string' || kind === 'bytes' ? { min: 0n, max: 12n } : undefined),
}

const intList = '[1, 2, 3, 4, 5]'
const doubleList = '[1.0, 2.0, 3.0, 4.0, 5.0]'
const boolList = '[false, true, false, true, false]'
const stringList = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']"
const stringLiteral = "'01234567890123456789012345678901234567890123456789'"

const CASES: [string, bigint, bigint][] = [
  [`${intList}.sum()`, 15n, 15n],
  [`${doubleList}.sum()`, 15n, 15n],
  ...['.isSorted()', '.max()', '.min()'].flatMap((op): [string, bigint, bigint][] => [
    [`${intList}${op}`, 15n, 15n],
    [`${doubleList}${op}`, 15n, 15n],
    [`${boolList}${op}`, 15n, 15n],
    [`${stringList}${op}`, 15n, 25n],
  ]),
  ...['indexOf', 'lastIndexOf'].flatMap((op): [string, bigint, bigint][] => [
    [`${intList}.${op}(3)`, 15n, 15n],
    [`${doubleList}.${op}(3.0)`, 15n, 15n],
    [`${boolList}.${op}(true)`, 15n, 15n],
    [`${stringList}.${op}('x')`, 15n, 25n],
    [`${stringLiteral}.${op}('123')`, 5n, 5n],
  ]),
  ...['.getScheme()', '.getHostname()', '.getHost()', '.getPort()', '.getEscapedPath()', '.getQuery()'].map((op): [string, bigint, bigint] => [`url('https:://kubernetes.io/')${op}`, 4n, 4n]),
  ["ip('192.168.0.1')", 2n, 2n],
  ["ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4n, 4n],
  ...['.family()', '.isUnspecified()', '.isLoopback()', '.isLinkLocalMulticast()', '.isLinkLocalUnicast()', '.isGlobalUnicast()'].map((op): [string, bigint, bigint] => [`ip('192.168.0.1')${op}`, 3n, 3n]),
  ["cidr('192.168.0.0/16')", 2n, 2n],
  ...['.ip()', '.prefixLength()', '.masked()'].map((op): [string, bigint, bigint] => [`cidr('192.168.0.0/16')${op}`, 3n, 3n]),
  ["cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))", 7n, 11n],
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3n, 3n],
  ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 7n, 9n],
  ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 3n, 3n],
  ["'abc 123 def 123'.replace('123', '456')", 3n, 3n],
  ["'abc 123 def 123'.replace('', 'x')", 3n, 3n],
  ["'abc 123 def 123'.replace('123', '')", 3n, 3n],
  ["'abc 123 def 123'.replace('123', '456', 1)", 3n, 3n],
  ["'abc 123 def 123'.split(' ')", 3n, 3n],
  ["'abc 123 def 123'.split(' ', 1)", 3n, 3n],
  ["'abc 123 def 123'.substring(5)", 2n, 2n],
  ["'abc 123 def 123'.substring(5, 8)", 2n, 2n],
  ["'  abc 123 def 123  '.trim()", 2n, 2n],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 11n, 23n],
  ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 10n, 22n],
  ["'abc 123 def 123'.find('123')", 2n, 2n],
  ["'abc 123 def 123'.findAll('123')", 2n, 2n],
  ["'abc 123 def 123'.findAll('123', 1)", 2n, 2n],
  ['quantity("12Mi")', 1n, 1n],
  ['isQuantity("20")', 1n, 1n],
  ['quantity("50M").isLessThan(quantity("50Mi"))', 3n, 3n],
  ['semver("1.0.0")', 1n, 1n],
  ['semver("1234.56789012345.67890123456789")', 4n, 4n],
  ['isSemver("1.0.0")', 1n, 1n],
]

describe('core/cel: the Kubernetes libraries\' cost estimates (library/cost_test.go)', () => {
  const env = celEnvironment({})
  for (const [expr, min, max] of CASES) {
    it(expr, () => assert.deepEqual(compileCel(env, expr).estimateCost(byType), { min, max }))
  }
})

describe('core/cel: the Kubernetes libraries\' runtime costs (library/cost_test.go)', () => {
  // The reference's test programs build literal lists (10) that its servers' environments fold
  // into constants, as the engine does: those cases cost 10 less here.
  const env = celEnvironment({})
  const CASES: [string, bigint][] = [
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15n - 10n],
    ["['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13n - 10n],
    [`${intList}.sum()`, 15n - 10n],
    [`${stringList}.isSorted()`, 15n - 10n],
    [`${stringLiteral}.indexOf('123')`, 5n],
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9n],
    ["'abc 123 def 123'.replace('123', '456')", 3n],
    ["'abc 123 def 123'.split(' ')", 3n],
    ["'abc 123 def 123'.findAll('123')", 2n],
    ['quantity("50M").isLessThan(quantity("50Mi"))', 3n],
    ['semver("1234.56789012345.67890123456789")', 4n],
    ["ip('2001:db8:3333:4444:5555:6666:7777:8888').family()", 5n],
    ["cidr('192.168.0.0/16').prefixLength()", 3n],
  ]
  for (const [expr, cost] of CASES) {
    it(expr, () => assert.equal(compileCel(env, expr).evaluateWithCost({}).cost, cost))
  }
})
