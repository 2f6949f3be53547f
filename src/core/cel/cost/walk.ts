/**
 * cel-go's cost estimator (checker/cost.go) over the library's parsed and checked AST. cel-go
 * expands macros into comprehensions and prices those; the library keeps the macro call, so
 * each macro is priced here as cel-go's expansion of it (parser/macro.go): `all` is a fold
 * with `@not_strictly_false(accu)` as its condition and `accu && p` as its step, `exists`
 * `@not_strictly_false(!accu)` and `accu || p`, `exists_one` `p ? accu + 1 : accu` then
 * `accu == 1`, `map` and `filter` `accu + [x]` from `[]`, `cel.bind` a fold over `[]`.
 * With the sizes of an activation's values (sizes.ts) the walk bounds the runtime cost without
 * evaluating (CelProgram.actualCost); the runtime cost itself is tracked as the expression runs
 * (tracker.ts).
 */
import type { ValueKind } from './decl.js'
import {
  CONST_COST,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  MAX_UINT64,
  type Range,
  SELECT_AND_IDENT_COST,
  UNKNOWN,
  add,
  fixed,
  multiply,
  union,
} from './estimate.js'
import { type CallSite, functionCost } from './functions.js'
import type { CostSizes } from './sizes.js'

/** The library's AST node, as far as the walk reads it. */
export interface AstNode {
  readonly op: string
  readonly args: any
  readonly checkedType?: CheckedType
  readonly meta?: { alternate?: AstNode; macro?: unknown }
}

export interface CheckedType {
  readonly kind: string
  readonly name: string
  readonly valueType?: CheckedType
  readonly keyType?: CheckedType
}

interface EntrySize {
  container: 'list' | 'map'
  key: Range
  val: Range
}

interface LocalVar {
  path: string[] | undefined
  size?: Range
  entry?: EntrySize
}

const QUANTIFIERS = new Set(['all', 'exists', 'exists_one'])
const SCALARS = new Set<ValueKind>(['bool', 'double', 'duration', 'int', 'timestamp', 'uint'])
const ZERO: Range = fixed(0)
const ONE: Range = fixed(1)

function unionEntries(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (!a || !b) return undefined
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) }
}

function isNumericLiteral(n: AstNode): boolean {
  return n.op === 'value' && (typeof n.args === 'number' || typeof n.args === 'bigint' || (typeof n.args === 'object' && n.args !== null && typeof n.args.valueOf() === 'bigint'))
}

function kindOfType(t: CheckedType | undefined): ValueKind {
  if (!t) return 'dyn'
  // The library types timestamps and durations as messages.
  if (t.name === 'google.protobuf.Timestamp') return 'timestamp'
  if (t.name === 'google.protobuf.Duration') return 'duration'
  switch (t.kind) {
    case 'list':
      return 'list'
    case 'map':
      return 'map'
    case 'message':
      return 'struct'
    case 'optional':
      return 'optional'
    case 'dyn':
    case 'param':
      return 'dyn'
  }
  switch (t.name) {
    case 'string':
    case 'bytes':
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
      return t.name
    case 'null':
    case 'null_type':
      return 'null'
    case 'google.protobuf.Timestamp':
      return 'timestamp'
    case 'google.protobuf.Duration':
      return 'duration'
    case 'type':
      return 'type'
  }
  return 'opaque'
}

export class CostWalk {
  private readonly paths = new Map<AstNode, string[]>()
  private readonly sizes = new Map<AstNode, Range>()
  private readonly entries = new Map<AstNode, EntrySize>()
  private readonly locals = new Map<string, LocalVar[]>()

  /**
   * `presenceTestHasCost`: cel-go charges `has()` 1 by default; the reference's environments turn
   * that off (PresenceTestHasCost(false), in estimates and when evaluating), and so does this by default.
   */
  constructor(
    private readonly data: CostSizes,
    private readonly presenceTestHasCost = false,
  ) {}

  /** The cost of a node (cel-go's coster.cost). */
  cost(n: AstNode): Range {
    switch (n.op) {
      case 'value':
        return fixed(CONST_COST)
      case 'id':
        return this.costIdent(n)
      case '.':
        return this.costSelect(n)
      case '.?':
        return add(ONE, this.cost(n.args[0]))
      case '[]':
        return this.costIndex(n)
      case '[?]':
        return add(ONE, add(this.cost(n.args[0]), this.cost(n.args[1])))
      case 'list':
        return this.costList(n)
      case 'map':
        return this.costMap(n)
      case '?:':
        return this.costConditional(n)
      case '&&':
      case '||': {
        const l = this.cost(n.args[0])
        const r = this.cost(n.args[1])
        return { min: l.min, max: add(l, r).max }
      }
      case '-_':
        // cel-go's parser folds a negative number into its literal.
        if (isNumericLiteral(n.args)) return fixed(CONST_COST)
        return add(ONE, this.cost(n.args))
      case '!_':
        return add(ONE, this.cost(n.args))
      case 'call':
        return this.costCall(n, n.args[0], undefined, n.args[1])
      case 'rcall':
        return this.costCall(n, n.args[0], n.args[1], n.args[2])
      default:
        if (Array.isArray(n.args) && n.args.length === 2) return this.costCall(n, n.op, undefined, n.args)
        return ZERO
    }
  }

  private costIdent(n: AstNode): Range {
    const local = this.peek(n.args)
    this.paths.set(n, local ? (local.path ?? []) : [n.args])
    // A type name (`int`, `string`) is a constant when evaluated.
    if (this.data.actual && n.meta?.alternate) return ZERO
    return fixed(SELECT_AND_IDENT_COST)
  }

  private costSelect(n: AstNode): Range {
    const [operand, field] = n.args as [AstNode, string]
    let c = this.cost(operand)
    const kind = this.kindOf(operand)
    // cel-go charges a field selection on maps and objects, not on dyn; every qualifier costs when evaluated.
    if (this.data.actual || kind === 'map' || kind === 'struct' || kind === 'object') c = add(c, fixed(SELECT_AND_IDENT_COST))
    this.paths.set(n, [...(this.pathOf(operand) ?? []), field])
    return c
  }

  private costIndex(n: AstNode): Range {
    const [operand, index] = n.args as [AstNode, AstNode]
    // Evaluated, a variable used as the index is part of the qualifier: only the qualifier is charged.
    const indexCost = this.cost(index)
    const c = add(ONE, add(this.cost(operand), this.data.actual && index.op === 'id' && !index.meta?.alternate ? ZERO : indexCost))
    const kind = this.kindOf(operand)
    this.paths.set(n, [...(this.pathOf(operand) ?? []), kind === 'list' ? '@items' : '@values'])
    const size = this.entries.get(operand)?.val ?? this.localEntry(operand)?.val ?? this.computeSize(n)
    if (size) this.sizes.set(n, size)
    return c
  }

  private costList(n: AstNode): Range {
    const items = n.args as AstNode[]
    // cel-go's planner makes a list or map of literals a constant: nothing is built when evaluating.
    const constant = this.data.actual && items.every(isLiteral)
    let itemSize: Range = items.length === 0 ? ZERO : { min: MAX_UINT64, max: 0n }
    let c = ZERO
    for (const item of items) {
      c = add(c, this.cost(item))
      itemSize = union(itemSize, this.sizeOrUnknown(item))
    }
    this.entries.set(n, { container: 'list', key: ONE, val: itemSize })
    return constant ? c : add(c, fixed(LIST_CREATE_BASE_COST))
  }

  private costMap(n: AstNode): Range {
    const entries = n.args as [AstNode, AstNode][]
    const constant = this.data.actual && entries.every(([k, v]) => isLiteral(k) && isLiteral(v))
    let keySize: Range = entries.length === 0 ? ZERO : { min: MAX_UINT64, max: 0n }
    let valSize: Range = keySize
    let c = ZERO
    for (const [k, v] of entries) {
      c = add(c, add(this.cost(k), this.cost(v)))
      keySize = union(keySize, this.sizeOrUnknown(k))
      valSize = union(valSize, this.sizeOrUnknown(v))
    }
    this.entries.set(n, { container: 'map', key: keySize, val: valSize })
    return constant ? c : add(c, fixed(MAP_CREATE_BASE_COST))
  }

  private costConditional(n: AstNode): Range {
    const [cond, t, f] = n.args as [AstNode, AstNode, AstNode]
    const c = add(this.cost(cond), union(this.cost(t), this.cost(f)))
    this.sizes.set(n, union(this.sizeOrUnknown(t), this.sizeOrUnknown(f)))
    const entry = unionEntries(this.entryOf(t), this.entryOf(f))
    if (entry) this.entries.set(n, entry)
    return c
  }

  private costCall(n: AstNode, name: string, target: AstNode | undefined, args: AstNode[]): Range {
    if (n.meta?.alternate && target && (QUANTIFIERS.has(name) || name === 'map' || name === 'filter')) return this.costMacro(n, name, target, args)
    if (name === 'has' && n.meta?.macro) {
      // A presence test costs its operand, not the selection (and 1 where presence tests are charged).
      const select = args[0]!
      const operand = select.op === '.' || select.op === '.?' ? this.cost(select.args[0]) : ZERO
      return this.presenceTestHasCost ? add(fixed(SELECT_AND_IDENT_COST), operand) : operand
    }
    if (name === 'bind' && target?.op === 'id' && target.args === 'cel' && args.length === 3) return this.costBind(n, args)
    if (name === 'dyn' && !target && args.length === 1) {
      const c = add(ONE, this.cost(args[0]!))
      this.copySizes(n, args[0]!)
      return c
    }
    const argCosts = args.map((a) => this.cost(a))
    let c = ZERO
    if (target) c = this.cost(target)
    const site: CallSite = {
      actual: this.data.actual,
      name,
      target: target ? this.site(target) : undefined,
      args: args.map((a) => this.site(a)),
      argCosts,
    }
    const estimate = functionCost(site)
    c = add(c, estimate.cost)
    const size = estimate.resultSize ?? this.computeSize(n)
    if (size) this.sizes.set(n, size)
    if (estimate.entryFromArgs) {
      const entry = unionEntries(this.entryOf(args[0]!), this.entryOf(args[1]!))
      if (entry) this.entries.set(n, entry)
    }
    return c
  }

  /** An argument as the cost functions see it: its size, kind, element kind and path. */
  private site(a: AstNode) {
    const path = this.pathOf(a)
    return {
      node: a,
      kind: this.kindOf(a),
      elementKind: this.elementKindOf(a),
      size: this.sizeOrUnknown(a),
      computedSize: this.computeSize(a),
      elementSize: this.elementSize(a, path),
      literal: a.op === 'value' ? (a.args as unknown) : undefined,
      typeName: a.checkedType?.name,
    }
  }

  /** The size of a list's elements (the reference's listElementNode, sized by the estimator or unknown). */
  private elementSize(a: AstNode, path: string[] | undefined): Range {
    const byPath = path && path.length > 0 ? this.data.size([...path, '@items']) : undefined
    const kind = this.elementKindOf(a)
    return byPath ?? (kind ? this.data.typeSize?.(kind) : undefined) ?? (this.data.actual ? ZERO : UNKNOWN)
  }

  private costMacro(n: AstNode, name: string, range: AstNode, args: AstNode[]): Range {
    const iterVar = args[0]!.args as string
    let c = this.cost(range)
    this.pushIter(iterVar, range)
    let loop: Range
    let step: Range
    let result: Range
    let init: Range = ZERO
    let stepEntry: EntrySize | undefined
    const emptyListEntry: EntrySize = { container: 'list', key: ONE, val: ZERO }
    switch (name) {
      case 'all':
      case 'exists': {
        const p = this.cost(args[1]!)
        // @not_strictly_false(accu) (and !accu for exists): a call and the accumulator.
        loop = name === 'all' ? fixed(2) : fixed(3)
        step = { min: 1n, max: add(ONE, p).max }
        result = ONE
        break
      }
      case 'exists_one': {
        const p = this.cost(args[1]!)
        loop = ZERO
        // p ? accu + 1 : accu, then accu == 1.
        step = add(p, { min: 1n, max: 2n })
        result = fixed(2)
        break
      }
      case 'map': {
        // The empty accumulator list is a constant when evaluated.
        init = this.data.actual ? ZERO : fixed(LIST_CREATE_BASE_COST)
        const filter = args.length === 3 ? this.cost(args[1]!) : undefined
        const transform = args[args.length - 1]!
        const f = this.cost(transform)
        // accu + [f]: the concatenation, the accumulator and the one-item list.
        const append = add(f, fixed(12))
        step = filter ? add(filter, union(append, ONE)) : append
        loop = ZERO
        result = ONE
        stepEntry = unionEntries(emptyListEntry, { container: 'list', key: ONE, val: this.sizeOrUnknown(transform) })
        break
      }
      default: {
        // filter: p ? accu + [x] : accu.
        init = this.data.actual ? ZERO : fixed(LIST_CREATE_BASE_COST)
        const p = this.cost(args[1]!)
        step = add(p, { min: 1n, max: 13n })
        loop = ZERO
        result = ONE
        const item = this.peek(iterVar)?.size ?? this.data.size(this.peek(iterVar)?.path ?? []) ?? UNKNOWN
        stepEntry = unionEntries(emptyListEntry, { container: 'list', key: ONE, val: item })
      }
    }
    this.pop(iterVar)
    const rangeCount = this.sizeOrUnknown(range)
    c = add(add(add(c, init), result), multiply(rangeCount, add(step, loop)))
    if (name === 'map' || name === 'filter') {
      this.sizes.set(n, rangeCount)
      if (stepEntry) this.entries.set(n, stepEntry)
    } else this.sizes.set(n, ONE)
    return c
  }

  private costBind(n: AstNode, args: AstNode[]): Range {
    const name = args[0]!.args as string
    // Lazily bound: the empty range list is still priced.
    let c = add(fixed(LIST_CREATE_BASE_COST), this.cost(args[1]!))
    this.push(name, { path: this.pathOf(args[1]!), size: this.computeSize(args[1]!), entry: this.entryOf(args[1]!) })
    c = add(c, this.cost(args[2]!))
    this.pop(name)
    this.copySizes(n, args[2]!)
    return c
  }

  private pushIter(name: string, range: AstNode): void {
    const entry = this.entryOf(range)
    const container = entry?.container ?? (this.kindOf(range) === 'map' ? 'map' : 'list')
    const path = [...(this.pathOf(range) ?? []), container === 'list' ? '@items' : '@keys']
    this.push(name, { path, size: container === 'list' ? entry?.val : entry?.key })
  }

  private push(name: string, v: LocalVar): void {
    const stack = this.locals.get(name) ?? []
    stack.push(v)
    this.locals.set(name, stack)
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop()
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.locals.get(name)
    return stack && stack.length > 0 ? stack[stack.length - 1] : undefined
  }

  private pathOf(n: AstNode): string[] | undefined {
    if (n.op === 'id') {
      const local = this.peek(n.args)
      if (local) return local.path
    }
    return this.paths.get(n)
  }

  private localEntry(n: AstNode): EntrySize | undefined {
    return n.op === 'id' ? this.peek(n.args)?.entry : undefined
  }

  private entryOf(n: AstNode): EntrySize | undefined {
    return this.entries.get(n) ?? this.localEntry(n)
  }

  private copySizes(dst: AstNode, src: AstNode): void {
    const size = this.computeSize(src)
    if (size) this.sizes.set(dst, size)
    const entry = this.entryOf(src)
    if (entry) this.entries.set(dst, entry)
  }

  /** The declared kind where the path is known, else the checker's type. */
  kindOf(n: AstNode): ValueKind {
    const path = this.pathOf(n)
    const declared = path && path.length > 0 ? this.data.kind(path) : undefined
    if (declared) return declared === 'object' ? 'struct' : declared
    if (n.op === 'value') {
      const v = n.args
      if (typeof v === 'string') return 'string'
      if (v instanceof Uint8Array) return 'bytes'
    }
    return kindOfType(n.checkedType)
  }

  private elementKindOf(n: AstNode): ValueKind | undefined {
    const path = this.pathOf(n)
    const declared = path && path.length > 0 ? this.data.kind([...path, '@items']) : undefined
    if (declared) return declared === 'object' ? 'struct' : declared
    const t = n.checkedType
    return t?.kind === 'list' ? kindOfType(t.valueType) : undefined
  }

  private isScalar(n: AstNode): boolean {
    const t = n.checkedType
    if (t?.kind === 'optional') return SCALARS.has(kindOfType(t.valueType))
    return SCALARS.has(kindOfType(t))
  }

  /** cel-go's computeSize: computed, literal, estimated from the data, scalar, or a local variable's. */
  computeSize(n: AstNode): Range | undefined {
    const known = this.sizes.get(n)
    if (known) return known
    const literal = literalSize(n)
    if (literal) return literal
    const path = this.pathOf(n)
    // As the reference, any non-empty path is looked up (a literal list's items are `@items` from the root).
    if (path && path.length > 0) {
      const size = this.data.size(path)
      if (size) {
        this.sizes.set(n, size)
        return size
      }
    }
    const byType = this.data.typeSize?.(this.kindOf(n))
    if (byType) {
      this.sizes.set(n, byType)
      return byType
    }
    if (this.isScalar(n)) return ONE
    if (n.op === 'id') return this.peek(n.args)?.size
    return undefined
  }

  /** An unknown size is unbounded for an estimate; when evaluating, a value the walk cannot see counts as 1 (cel-go's actualSize of an unsized value). */
  sizeOrUnknown(n: AstNode): Range {
    return this.computeSize(n) ?? (this.data.actual ? ONE : UNKNOWN)
  }
}

function isLiteral(n: AstNode): boolean {
  return n.op === 'value' || (n.op === '-_' && isNumericLiteral(n.args))
}

/** computeExprSize: literals and literal lists and maps. */
function literalSize(n: AstNode): Range | undefined {
  if (n.op === 'list' || n.op === 'map') return fixed((n.args as unknown[]).length)
  if (n.op === '-_' && isNumericLiteral(n.args)) return ONE
  if (n.op !== 'value') return undefined
  const v = n.args
  if (typeof v === 'string') return fixed([...v].length)
  if (v instanceof Uint8Array) return fixed(v.length)
  return ONE
}

