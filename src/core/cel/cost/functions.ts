/**
 * The cost of a function or operator call: the Kubernetes libraries' estimates first
 * (apiserver/pkg/cel/library/cost.go, EstimateCallCost), then cel-go's own (checker/cost.go,
 * functionCost), else 1. Each includes the arguments' costs, as cel-go's do; the target's cost
 * is the caller's. Where an operand is dynamic, cel-go prices every overload it could call and
 * takes their union; so does this.
 */
import {
  MAX_UINT64,
  REGEX_STRING_LENGTH_COST_FACTOR as REGEX,
  type Range,
  STRING_TRAVERSAL_COST_FACTOR as TRAVERSAL,
  add,
  fixed,
  multiply,
  multiplyByFactor,
  sum,
  union,
} from './estimate.js'
import type { ValueKind } from './decl.js'

export interface CallArg {
  kind: ValueKind
  /** For lists, the kind of their items. */
  elementKind: ValueKind | undefined
  /** The size, or the unknown range. */
  size: Range
  /** The size known from the expression or the data (ComputedSize), or undefined. */
  computedSize: Range | undefined
  /** For lists, the size of their items as the data tells it. */
  elementSize: Range
  literal: unknown
  typeName: string | undefined
}

export interface CallSite {
  /** Whether the sizes are evaluated values' (the library's runtime CallCost where it differs). */
  actual: boolean
  name: string
  target: CallArg | undefined
  args: CallArg[]
  argCosts: Range[]
}

export interface CallEstimate {
  cost: Range
  resultSize?: Range
  /** The result's entries are the union of the two operands' (list concatenation). */
  entryFromArgs?: boolean
}

const ONE = fixed(1)
const NUMERIC = new Set<ValueKind>(['int', 'uint', 'double'])
const O1_TYPES = new Set(['kubernetes.Quantity', 'kubernetes.Semver', 'net.IP', 'net.CIDR'])
const AUTHZ_NOMINAL = new Set(['serviceAccount', 'path', 'group', 'resource', 'subresource', 'namespace', 'name', 'allowed', 'reason', 'error', 'errored'])
const NOMINAL = new Set([
  'masked', 'prefixLength', 'family', 'isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast',
  'sign', 'asInteger', 'isInteger', 'asApproximateFloat', 'isGreaterThan', 'isLessThan', 'compareTo', 'add', 'sub', 'major', 'minor', 'patch',
  'getScheme', 'getHostname', 'getHost', 'getPort', 'getEscapedPath', 'getQuery',
])
const LIST_TRAVERSALS = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf'])
const STRING_PARSES = new Set(['cidr', 'isIP', 'isCIDR', 'quantity', 'isQuantity', 'semver', 'isSemver'])

/** Numbers, timestamps and durations, whose addition is O(1). */
function mayArithmetic(kind: ValueKind): boolean {
  return kind === 'dyn' || NUMERIC.has(kind) || kind === 'duration' || kind === 'timestamp'
}

/** Whether an operand of this kind may be of the family (dynamic values may be anything). */
function may(kind: ValueKind, family: ValueKind | 'numeric'): boolean {
  if (kind === 'dyn') return true
  if (family === 'numeric') return NUMERIC.has(kind)
  return kind === family
}

function withArgs(site: CallSite, cost: Range, resultSize?: Range): CallEstimate {
  return resultSize ? { cost: add(cost, sum(site.argCosts)), resultSize } : { cost: add(cost, sum(site.argCosts)) }
}

/** Equality and string/bytes ordering: O(min(m, n)) of the smaller largest size. */
function compareCost(l: Range, r: Range): Range {
  const smallestMax = l.max < r.max ? l.max : r.max
  return multiplyByFactor({ min: smallestMax > 0n ? 1n : 0n, max: smallestMax }, TRAVERSAL)
}

export function functionCost(site: CallSite): CallEstimate {
  return kubernetesCost(site) ?? celGoCost(site) ?? withArgs(site, ONE)
}

/** apiserver/pkg/cel/library/cost.go, EstimateCallCost. */
function kubernetesCost(site: CallSite): CallEstimate | undefined {
  const { name, target, args } = site
  switch (name) {
    case 'check':
      return withArgs(site, fixed(350000))
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      if (!target || !LIST_TRAVERSALS.has(name)) return undefined
      if (site.actual) return withArgs(site, traversalCost(target))
      if (target.kind === 'list' || target.elementKind !== undefined) {
        let elementCost = ONE
        const k = target.elementKind
        if (k === 'string' || k === 'bytes') elementCost = add(elementCost, multiplyByFactor(target.elementSize, TRAVERSAL))
        return withArgs(site, multiply(target.size, elementCost))
      }
      return withArgs(site, multiplyByFactor(target.size, TRAVERSAL))
    case 'url':
      if (args.length === 1 && !target) return withArgs(site, multiplyByFactor(args[0]!.size, TRAVERSAL), args[0]!.size)
      return undefined
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      if (target) return withArgs(site, multiplyByFactor(target.size, TRAVERSAL), target.size)
      return undefined
    case 'replace':
      if (target && args.length >= 2) return withArgs(site, multiplyByFactor(target.size, 2 * TRAVERSAL), replaceSize(target.size, args[0]!.size, args[1]!.size))
      return undefined
    case 'split':
      if (target) {
        // Evaluated, the traversal and the result are priced together.
        if (site.actual) return withArgs(site, multiplyByFactor(target.size, 2 * TRAVERSAL), { min: 0n, max: target.size.max })
        let max = target.size.max
        if (args.length > 1 && typeof args[1]!.literal === 'bigint') max = BigInt.asUintN(64, args[1]!.literal)
        return withArgs(site, multiplyByFactor(target.size, 2 * TRAVERSAL), { min: 0n, max })
      }
      return undefined
    case 'join':
      if (target) {
        let size: Range = fixed(0)
        if (target.elementKind !== undefined || target.kind === 'list') size = multiply(target.size, target.elementSize)
        if (args.length > 0) {
          const separators = { min: target.size.min > 0n ? target.size.min - 1n : 0n, max: target.size.max > 0n ? target.size.max - 1n : 0n }
          size = add(size, multiply(args[0]!.size, separators))
        }
        return withArgs(site, multiplyByFactor(size, TRAVERSAL), size)
      }
      return undefined
    case 'find':
    case 'findAll':
      if (target && args.length >= 1) {
        const strCost = multiplyByFactor(add(target.size, ONE), TRAVERSAL)
        const regexCost = multiplyByFactor(args[0]!.size, REGEX)
        return withArgs(site, multiply(strCost, regexCost), { min: 0n, max: target.size.max })
      }
      return undefined
    case 'ip':
      // cidr.ip() reads a field.
      if (target) return withArgs(site, ONE)
      if (args.length >= 1) return withArgs(site, multiplyByFactor(args[0]!.size, TRAVERSAL))
      return undefined
    case 'containsIP':
    case 'containsCIDR':
      if (target && args.length >= 1) return withArgs(site, containsCost(name, args[0]!))
      return undefined
    case '==':
    case '!=':
      return name === '==' ? kubernetesEquality(site) : undefined
  }
  if (AUTHZ_NOMINAL.has(name) || NOMINAL.has(name)) return withArgs(site, ONE)
  if (STRING_PARSES.has(name) && args.length >= 1) return withArgs(site, multiplyByFactor(args[0]!.size, TRAVERSAL))
  return undefined
}

/** traversalCost when evaluating: a string's length x 0.1 rounded down, 1 per other item. */
function traversalCost(target: CallArg): Range {
  const floor = (r: Range): Range => ({ min: BigInt(Math.floor(Number(r.min) * TRAVERSAL)), max: BigInt(Math.floor(Number(r.max) * TRAVERSAL)) })
  if (target.kind === 'string' || target.kind === 'bytes') return floor(target.size)
  const k = target.elementKind
  return multiply(target.size, k === 'string' || k === 'bytes' ? floor(target.elementSize) : ONE)
}

/** The reference's `_==_` estimates for its own types: O(1), and a URL's by its size. */
function kubernetesEquality(site: CallSite): CallEstimate | undefined {
  const [l, r] = site.args
  if (!l || !r || l.typeName === undefined || l.typeName !== r.typeName) return undefined
  if (O1_TYPES.has(l.typeName) || l.typeName.startsWith('kubernetes.authorization.')) return withArgs(site, ONE)
  if (l.typeName === 'kubernetes.URL') {
    const size = r.computedSize ?? ONE
    return withArgs(site, multiplyByFactor({ min: 1n, max: size.max }, TRAVERSAL))
  }
  return undefined
}

function containsCost(name: string, other: CallArg): Range {
  // Comparing two IPs of 4 or 16 bytes.
  const ipBytes: Range = { min: 4n, max: 16n }
  let cost = multiplyByFactor(add(ipBytes, ipBytes), TRAVERSAL)
  if (name === 'containsCIDR') cost = add(add(cost, multiplyByFactor(ipBytes, TRAVERSAL)), ONE)
  if (may(other.kind, 'string')) {
    const parse = add(cost, multiplyByFactor(other.size, TRAVERSAL))
    cost = other.kind === 'string' ? parse : union(cost, parse)
  }
  return cost
}

/** The size of `s.replace(a, b)` (the reference's estimate). */
function replaceSize(sz: Range, toReplace: Range, replaceWith: Range): Range {
  let countMax: bigint
  let countMin: bigint
  let retainedMax = 0n
  let retainedMin = 0n
  if (toReplace.min === 0n) {
    countMax = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max
    retainedMax = sz.max
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0n
    retainedMax = sz.max
  } else countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)))
  if (toReplace.max === 0n) {
    countMin = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min
    retainedMin = sz.min
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0n
    retainedMin = sz.min
  } else countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)))
  return add(multiply({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax })
}

/** cel-go's functionCost for its standard overloads. */
function celGoCost(site: CallSite): CallEstimate | undefined {
  const { name, target, args } = site
  switch (name) {
    case 'format':
      if (target) return withArgs(site, multiplyByFactor(target.size, TRAVERSAL))
      return undefined
    case 'bytes':
      if (!target && args.length === 1 && may(args[0]!.kind, 'string')) {
        const sz = args[0]!.size
        return withArgs(site, multiplyByFactor(sz, TRAVERSAL), { min: sz.min, max: sz.max * 4n > MAX_UINT64 ? MAX_UINT64 : sz.max * 4n })
      }
      return undefined
    case 'string':
      if (!target && args.length === 1 && may(args[0]!.kind, 'bytes')) {
        const sz = args[0]!.size
        return withArgs(site, multiplyByFactor(sz, TRAVERSAL), { min: sz.min / 4n, max: sz.max })
      }
      return undefined
    case 'startsWith':
    case 'endsWith':
      if (args.length === 1) return withArgs(site, multiplyByFactor(args[0]!.size, TRAVERSAL))
      return undefined
    case 'in': {
      const [, list] = args
      if (!list) return undefined
      let cost: Range | undefined
      if (may(list.kind, 'list')) cost = list.size
      if (may(list.kind, 'map')) cost = cost ? union(cost, ONE) : ONE
      return cost ? withArgs(site, cost) : undefined
    }
    case 'matches':
      // Only the receiver form is priced by its sizes (matches_string); matches(s, re) costs 1.
      if (target && args.length === 1) {
        const strCost = multiplyByFactor(add(target.size, ONE), TRAVERSAL)
        const regexCost = multiplyByFactor(args[0]!.size, REGEX)
        return withArgs(site, multiply(strCost, regexCost))
      }
      return undefined
    case 'contains':
      if (target && args.length === 1 && may(target.kind, 'string')) {
        const c = multiply(multiplyByFactor(target.size, TRAVERSAL), multiplyByFactor(args[0]!.size, TRAVERSAL))
        return withArgs(site, target.kind === 'string' ? c : union(c, ONE))
      }
      return undefined
    case '+': {
      const [l, r] = args
      if (!l || !r) return undefined
      const resultSize = add(l.size, r.size)
      const candidates: CallEstimate[] = []
      if (may(l.kind, 'string') && may(r.kind, 'string')) candidates.push(withArgs(site, multiplyByFactor(resultSize, TRAVERSAL), resultSize))
      if (may(l.kind, 'bytes') && may(r.kind, 'bytes')) candidates.push(withArgs(site, multiplyByFactor(resultSize, TRAVERSAL), resultSize))
      if (may(l.kind, 'list') && may(r.kind, 'list')) candidates.push({ ...withArgs(site, ONE, resultSize), entryFromArgs: true })
      if ((candidates.length === 0 || (mayArithmetic(l.kind) && mayArithmetic(r.kind)))) candidates.push(withArgs(site, ONE))
      return candidates.reduce((a, b) => ({ cost: union(a.cost, b.cost), resultSize: a.resultSize && b.resultSize ? union(a.resultSize, b.resultSize) : (a.resultSize ?? b.resultSize), entryFromArgs: a.entryFromArgs || b.entryFromArgs }))
    }
    case '==':
    case '!=': {
      const [l, r] = args
      if (!l || !r) return undefined
      return withArgs(site, compareCost(l.size, r.size))
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const [l, r] = args
      if (!l || !r) return undefined
      const sized = (may(l.kind, 'string') && may(r.kind, 'string')) || (may(l.kind, 'bytes') && may(r.kind, 'bytes'))
      if (!sized) return undefined
      const c = compareCost(l.size, r.size)
      const onlySized = (l.kind === 'string' || l.kind === 'bytes') && l.kind === r.kind
      return withArgs(site, onlySized ? c : union(c, ONE))
    }
  }
  return undefined
}
