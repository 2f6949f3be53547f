/**
 * cel-go's runtime cost tracker (interpreter/runtimecost.go) on the library's evaluation: every
 * node of a program's own copy of the AST is wrapped so that, once evaluated, it adds its cost
 * (1 for a variable or a field, a call's cost from its arguments' values, 10 for a list built
 * at runtime, nothing for a literal, `&&`, `||` or `?:`), so short-circuits and early-ending
 * macros cost what ran. The macros' own bookkeeping, which the library does in JavaScript
 * rather than in nodes, is charged as cel-go's expansion costs when evaluated: 3 a step of
 * `all` (4 of `exists`) plus the check that ends it early, 2 an `exists_one` match, 12 an
 * element added by `map` or `filter`, 1 the result. Past the limit the evaluation stops, as
 * cel-go cancels it.
 */
import { type CallArg, functionCost } from './functions.js'
import type { ValueKind } from './decl.js'
import { actualSize } from './sizes.js'
import type { AstNode, CheckedType } from './walk.js'

/** Thrown inside the evaluation once the limit is passed (the caller turns it into its error). */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded')
  }
}

interface Tracked {
  cost: bigint
  limit: bigint | undefined
  cancelled: boolean
  values: Map<object, unknown>
}

type Evaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown
type Node = AstNode & { evaluate: Evaluate; readonly left?: AstNode; readonly right?: AstNode }

/** How a node is charged once evaluated. */
type Charge = { own: bigint } | { call: string; target?: Node; args: Node[] } | { macro: string; step: Node; iterable: Node }

const LOOSE: Record<string, bigint> = { value: 0n, '?:': 0n, '&&': 0n, '||': 0n, accuValue: 0n, accuInc: 2n, accuPush: 12n, '.': 1n, '.?': 1n, '[]': 1n, '[?]': 1n, '!_': 1n }
const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in'])
const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter'])
const OPTIONAL_CALLS = new Set(['orValue', 'or', 'value', 'hasValue'])

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as { op?: unknown }).op === 'string' && 'args' in v && typeof (v as { clone?: unknown }).clone === 'function'
}

function isLiteral(n: AstNode): boolean {
  return n.op === 'value' || (n.op === '-_' && (n.args as AstNode).op === 'value')
}

/** Every node below `root`, through macro expansions and their parts. */
function collect(root: Node): Set<Node> {
  const seen = new Set<Node>()
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit)
    if (isNode(v)) {
      if (seen.has(v)) return
      seen.add(v)
      visit(v.args)
      visit(v.meta?.alternate)
      visit(v.meta?.macro)
      return
    }
    if (typeof v === 'object' && v !== null && (v as object).constructor === Object) for (const x of Object.values(v)) visit(x)
  }
  visit(root)
  return seen
}

function valueKind(value: unknown, t: CheckedType | undefined): ValueKind {
  if (t && t.kind !== 'dyn' && t.kind !== 'param') {
    if (t.name === 'google.protobuf.Timestamp') return 'timestamp'
    if (t.name === 'google.protobuf.Duration') return 'duration'
    if (t.kind === 'list' || t.kind === 'map' || t.kind === 'optional') return t.kind
    if (t.kind === 'message') return 'struct'
    if (['string', 'bytes', 'int', 'uint', 'double', 'bool'].includes(t.name)) return t.name as ValueKind
  }
  if (typeof value === 'string') return 'string'
  if (value instanceof Uint8Array) return 'bytes'
  if (Array.isArray(value)) return 'list'
  if (value instanceof Map || (typeof value === 'object' && value !== null && value.constructor === Object)) return 'map'
  if (typeof value === 'bigint') return 'int'
  if (typeof value === 'number') return 'double'
  if (typeof value === 'boolean') return 'bool'
  return 'opaque'
}

function callArg(node: Node, value: unknown): CallArg {
  const size = actualSize(value)
  const kind = valueKind(value, node.checkedType)
  let elementSize = 0n
  let elementKind: ValueKind | undefined
  if (Array.isArray(value)) {
    for (const item of value) {
      const s = actualSize(item)
      if (s > elementSize) elementSize = s
    }
    elementKind = value.length > 0 ? valueKind(value[0], node.checkedType?.valueType) : node.checkedType?.valueType ? valueKind(undefined, node.checkedType.valueType) : undefined
  }
  return {
    kind,
    elementKind,
    size: { min: size, max: size },
    computedSize: { min: size, max: size },
    elementSize: { min: elementSize, max: elementSize },
    literal: node.op === 'value' ? node.args : undefined,
    typeName: node.checkedType?.name,
  }
}

const SIZELESS_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%'])

function isSizeless(v: unknown): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || v === null
}

const TRAVERSALS = new Set(['isSorted', 'sum', 'max', 'min', 'indexOf', 'lastIndexOf'])

/** traversalCost: a string's bytes x 0.1 rounded down, the sum over lists and maps, 1 for anything else. */
function traversalCost(value: unknown): bigint {
  if (typeof value === 'string') return BigInt(Math.floor(Buffer.byteLength(value) * 0.1))
  if (value instanceof Uint8Array) return BigInt(Math.floor(value.length * 0.1))
  if (Array.isArray(value)) return value.reduce<bigint>((sum, v) => sum + traversalCost(v), 0n)
  if (value instanceof Map) return [...value].reduce<bigint>((sum, [k, v]) => sum + traversalCost(k) + traversalCost(v), 0n)
  return 1n
}

function itemCount(value: unknown): bigint {
  if (Array.isArray(value)) return BigInt(value.length)
  if (value instanceof Map || value instanceof Set) return BigInt(value.size)
  if (typeof value === 'object' && value !== null) return BigInt(Object.keys(value).length)
  return 0n
}

/** The evaluation being tracked (evaluation is synchronous: one at a time). */
let current: Tracked | undefined

export interface TrackedResult {
  value?: unknown
  error?: unknown
  cost: bigint
  /** The limit was passed: the evaluation was stopped. */
  cancelled: boolean
}

/**
 * Wraps the nodes of `root` (a program's own AST) and returns a runner that evaluates with
 * cost tracking: `run(evaluate, limit)` calls `evaluate` and reports the cost it spent.
 */
export function costTracker(root: AstNode): (evaluate: () => unknown, limit?: bigint) => TrackedResult {
  const nodes = collect(root as Node)
  const charges = new Map<Node, Charge>()
  const free = new Set<Node>()
  const steps = new Map<Node, number>()
  for (const n of nodes) {
    // A variable used as an index is part of the qualifier; a literal list or map is a constant.
    if (n.op === '[]' && (n.args as Node[])[1]!.op === 'id') free.add((n.args as Node[])[1]!)
    if ((n.op === 'list' && (n.args as Node[]).every(isLiteral)) || (n.op === 'map' && (n.args as [Node, Node][]).every(([k, v]) => isLiteral(k) && isLiteral(v)))) {
      charges.set(n, { own: 0n })
      continue
    }
    if (n.op === 'rcall' && n.meta?.alternate && MACROS.has(n.args[0])) {
      const comprehension = n.meta.alternate as Node
      charges.set(n, { own: 0n })
      charges.set(comprehension, { macro: n.args[0], step: comprehension.args.step, iterable: comprehension.args.iterable })
      steps.set(comprehension.args.step, 0)
      continue
    }
    if (charges.has(n)) continue
    if (n.op === 'id') charges.set(n, { own: n.meta?.alternate ? 0n : 1n })
    else if (n.op === 'list') charges.set(n, { own: 10n })
    else if (n.op === 'map') charges.set(n, { own: 30n })
    else if (n.op === '-_') charges.set(n, { own: (n.args as Node).op === 'value' ? 0n : 1n })
    else if (n.op in LOOSE) charges.set(n, { own: LOOSE[n.op]! })
    else if (BINARY.has(n.op)) charges.set(n, { call: n.op, args: n.args as Node[] })
    else if (n.op === 'call' || n.op === 'rcall') {
      const name = n.args[0] as string
      if (n.meta?.macro && name === 'has') {
        // The variable is evaluated and charged; each field of the tested chain but the last costs 1.
        let chain = 0
        for (let s = (n.args[1] as Node[])[0]; s && (s.op === '.' || s.op === '.?'); s = s.args[0]) chain++
        charges.set(n, { own: BigInt(Math.max(0, chain - 1)) })
      } else if (n.meta?.macro && OPTIONAL_CALLS.has(name)) {
        // The library's optional accessors are macros; cel-go's are calls of cost 1.
        charges.set(n, { own: 1n })
      } else if (n.meta?.macro || n.meta?.alternate) charges.set(n, { own: 0n })
      else if (n.op === 'rcall') charges.set(n, { call: name, target: n.args[1], args: n.args[2] })
      else charges.set(n, { call: name, args: n.args[1] })
    } else charges.set(n, { own: 0n })
  }

  const costOf = (n: Node, t: Tracked, before: number | undefined): bigint => {
    const charge = charges.get(n)!
    if ('own' in charge) return free.has(n) ? 0n : charge.own
    if ('call' in charge) {
      // The Kubernetes libraries' CallCost where it reads the values rather than their sizes.
      const targetValue = charge.target ? t.values.get(charge.target) : undefined
      if (charge.target && charge.call === 'join') return BigInt(Math.ceil(Number(actualSize(t.values.get(n))) * 2 * 0.1))
      if (charge.target && Array.isArray(targetValue) && TRAVERSALS.has(charge.call)) return traversalCost(targetValue)
      // Arithmetic, and comparisons of values of no size, cost 1.
      if (SIZELESS_OPERATORS.has(charge.call) && charge.args.every((a) => isSizeless(t.values.get(a)))) return 1n
      const args = charge.args.map((a) => callArg(a, t.values.get(a)))
      const target = charge.target ? callArg(charge.target, t.values.get(charge.target)) : undefined
      return functionCost({ actual: true, name: charge.call, target, args, argCosts: args.map(() => ({ min: 0n, max: 0n })) }).cost.max
    }
    const k = BigInt(steps.get(charge.step)! - (before ?? 0))
    const n_ = itemCount(t.values.get(charge.iterable))
    switch (charge.macro) {
      case 'all':
        return 3n * k + (k < n_ ? 2n : 0n) + 1n
      case 'exists':
        return 4n * k + (k < n_ ? 3n : 0n) + 1n
      case 'exists_one':
        return 2n
      default:
        return 1n
    }
  }

  // Only the values a charge reads are kept.
  const read = new Set<Node>()
  for (const [n, charge] of charges) {
    if ('call' in charge) {
      charge.args.forEach((a) => read.add(a))
      if (charge.target) read.add(charge.target)
      read.add(n)
    } else if ('macro' in charge) read.add(charge.iterable)
  }

  for (const n of nodes) {
    const meta = n.meta
    const inner: Evaluate = meta?.alternate
      ? (ev, _ast, ctx) => (meta.alternate as Node).evaluate(ev, meta.alternate, ctx)
      : meta?.macro
        ? (ev, _ast, ctx) => (meta.macro as { evaluate: (ev: unknown, m: unknown, ctx: unknown) => unknown }).evaluate(ev, meta.macro, ctx)
        : (ev, ast, ctx) => (meta as unknown as { evaluate: Evaluate }).evaluate(ev, ast, ctx)
    const isStep = steps.has(n)
    const keep = read.has(n)
    const charge = charges.get(n)
    const macroStep = charge && 'macro' in charge ? charge.step : undefined
    n.evaluate = (ev, ast, ctx) => {
      const t = current
      if (!t) return inner(ev, ast, ctx)
      if (t.cancelled) throw new CostLimitExceeded()
      if (isStep) steps.set(n, steps.get(n)! + 1)
      const before = macroStep ? steps.get(macroStep) : undefined
      const value = inner(ev, ast, ctx)
      if (keep) t.values.set(n, value)
      t.cost += costOf(n, t, before)
      if (t.limit !== undefined && t.cost > t.limit) {
        t.cancelled = true
        throw new CostLimitExceeded()
      }
      return value
    }
  }

  return (evaluate, limit) => {
    const outer = current
    const t: Tracked = { cost: 0n, limit, cancelled: false, values: new Map() }
    current = t
    try {
      const value = evaluate()
      return t.cancelled ? { cost: t.cost, cancelled: true } : { value, cost: t.cost, cancelled: false }
    } catch (error) {
      return { error: t.cancelled ? undefined : error, cost: t.cost, cancelled: t.cancelled }
    } finally {
      current = outer
    }
  }
}
