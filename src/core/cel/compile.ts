/**
 * Compiling an expression once (parse and type-check) and evaluating it many times. Errors
 * read as cel-go's issues do (`ERROR: <input>:line:column: message` with the source line and
 * a caret), since the reference quotes them in its validation messages.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { toJson } from './values.js'
import { type AstNode, COST_LIMIT_EXCEEDED, type CostRange, type CostSizes, CostWalk, costTracker, runtimeCoster } from './cost/index.js'

export class CelCompileError extends Error {
  constructor(
    message: string,
    /** 'compilation' for parse and type errors; 'type' when the expression's result type is not one the caller accepts. */
    readonly kind: 'compilation' | 'type',
    /** For 'type': the type the checker inferred, in cel-go spelling ('string', 'list(string)'). */
    readonly actualType?: string,
  ) {
    super(message)
    this.name = 'CelCompileError'
  }
}

export class CelEvaluationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CelEvaluationError'
  }
}

/** An evaluation refused for its cost: cel-go's `operation cancelled: actual cost limit exceeded`. */
export class CelCostLimitError extends CelEvaluationError {
  constructor(readonly cost: bigint) {
    super(COST_LIMIT_EXCEEDED)
    this.name = 'CelCostLimitError'
  }
}

export interface CelCompileOptions {
  /** The text as the user wrote it, when `expression` is a rewrite of it (errors point into the original). */
  source?: CelSource
  /** cel-go's CostLimit: evaluations whose cost exceeds it throw CelCostLimitError (PER_CALL_LIMIT for the reference's callers). */
  costLimit?: bigint
}

export interface CelProgram {
  readonly expression: string
  /** The type the checker inferred: 'string', 'bool', 'list<string>', 'dyn', ... */
  readonly outputType: string
  /** The result with CEL ints as bigint; throws CelEvaluationError. */
  evaluate(activation: Record<string, unknown>): unknown
  /** The result converted to plain JSON values (ints as numbers, optionals unwrapped or undefined). */
  evaluateJson(activation: Record<string, unknown>): unknown
  /**
   * cel-go's static estimate (EstimateCost) in cost units, with the sizes of the data from
   * `sizes` (declared types: declaredSizes); without, every list, map and string is unbounded.
   * `has()` costs its operand only, as in the reference's environments, unless presenceTestHasCost.
   */
  estimateCost(sizes?: CostSizes, options?: { presenceTestHasCost?: boolean }): CostRange
  /**
   * The cost of evaluating against `activation`: cel-go's cost functions with the sizes of the
   * activation's values. It is computed without evaluating, so it counts both sides of `&&`,
   * `||` and `?:` and every iteration of a macro: an upper bound of cel-go's actual cost.
   */
  actualCost(activation: Record<string, unknown>): bigint
  /**
   * Evaluates with cel-go's cost tracking: each evaluated node charged as cel-go charges it,
   * stopped past `limit` (default: the costLimit option) with a CelCostLimitError. Errors are
   * returned with the cost spent, as cel-go's EvalDetails keeps the cost of a failed evaluation.
   */
  evaluateWithCost(activation: Record<string, unknown>, limit?: bigint): CelCostedResult
  /** Evaluates without cost tracking and without the costLimit option (CelCostBudget bounds the cost first); throws CelEvaluationError. */
  evaluateUntracked(activation: Record<string, unknown>): unknown
}

export interface CelCostedResult {
  value?: unknown
  error?: CelEvaluationError
  cost: bigint
}

interface LocatedError {
  summary?: string
  message: string
  range?: { start: number; end: number }
  node?: { pos?: number; start?: number; end?: number; op?: string; left?: { end?: number }; leftStaticType?: { name?: string }; rightStaticType?: { name?: string } }
}

/** cel-go's names of the binary operators' functions. */
const OPERATOR_FUNCTIONS: Record<string, string> = {
  '==': '_==_', '!=': '_!=_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_',
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', in: '@in',
}

/**
 * A missing overload as cel-go reports it, where the checker's node tells enough: at the
 * operator of a binary expression, or at the `(` of a call, with cel-go's
 * `found no matching overload for '<function>' applied to '(<args>)'` (a member call's receiver
 * before the parentheses: `'<type>.(<args>)'`).
 */
function overloadIssue(expression: string, summary: string, node: NonNullable<LocatedError['node']>): { offset: number; message: string } | undefined {
  const fn = node.op ? OPERATOR_FUNCTIONS[node.op] : undefined
  if (fn && /^no such overload: /.test(summary) && node.leftStaticType?.name && node.rightStaticType?.name) {
    const at = expression.indexOf(node.op!, node.left?.end ?? node.start ?? 0)
    return { offset: at < 0 ? (node.start ?? 0) : at, message: `found no matching overload for '${fn}' applied to '(${celGoTypeName(node.leftStaticType.name)}, ${celGoTypeName(node.rightStaticType.name)})'` }
  }
  const call = /^found no matching overload for '(.*)\((.*)\)'$/.exec(summary)
  if (!call || (node.op !== 'call' && node.op !== 'rcall')) return undefined
  const member = node.op === 'rcall' ? /^(.+)\.([A-Za-z_][\w]*)$/.exec(call[1]!) : null
  const name = member ? member[2]! : call[1]!
  const args = call[2]!.split(/,\s*(?![^<]*>)/).filter((a) => a !== '').map(celGoTypeName).join(', ')
  const pattern = new RegExp(`${member ? '\\.\\s*' : ''}${name.replace(/[^\w]/g, '\\$&')}\\s*\\(`, 'g')
  pattern.lastIndex = node.start ?? 0
  let open = -1
  for (let m = pattern.exec(expression); m && m.index < (node.end ?? expression.length); m = pattern.exec(expression)) open = m.index + m[0].length - 1
  const applied = member ? `${celGoTypeName(member[1]!)}.(${args})` : `(${args})`
  return { offset: open < 0 ? (node.start ?? 0) : open, message: `found no matching overload for '${name}' applied to '${applied}'` }
}

/** cel-go's spelling of an issue at an offset of the expression. */
function issueText(expression: string, err: LocatedError): string {
  let offset = err.range?.start ?? err.node?.start ?? err.node?.pos ?? 0
  // cel-go places a field selection at its '.' (the operator), the library at the field name.
  const summary = err.summary ?? err.message.split('\n')[0] ?? ''
  const fieldSelection = expression[offset - 1] === '.'
  if ((/^No such key: /.test(summary) || /^Cannot index type /.test(summary)) && fieldSelection) offset -= 1
  const overload = err.node ? overloadIssue(expression, summary, err.node) : undefined
  if (overload) offset = overload.offset
  const before = expression.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - (before.lastIndexOf('\n') + 1)
  const sourceLine = expression.split('\n')[line - 1] ?? ''
  const caret = `${sourceLine.slice(0, column).replace(/[^\t]/g, '.')}^`
  const cannotSelect = fieldSelection ? /^Cannot index type '(.+)'$/.exec(summary) : null
  const message = overload ? overload.message : cannotSelect ? `type '${cannotSelect[1]}' does not support field selection` : celGoMessage(summary)
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${caret}`
}

/** The checker's messages in cel-go's words where the two say the same thing. */
function celGoMessage(message: string): string {
  const unknownVariable = /^Unknown variable: (.+)$/.exec(message)
  if (unknownVariable) return `undeclared reference to '${unknownVariable[1]}' (in container '')`
  const overload = /^no such overload: (.+)$/.exec(message)
  if (overload) return `found no matching overload for ${overload[1]}`
  const noSuchKey = /^No such key: (.+)$/.exec(message)
  if (noSuchKey) return `undefined field '${noSuchKey[1]}'`
  return message
}

function typeName(type: string): string {
  return type
}

/** The checker's type in cel-go's spelling: `list<string>` is `list(string)`. */
function celGoTypeName(type: string): string {
  return type.replace(/</g, '(').replace(/>/g, ')')
}

/**
 * Parses and type-checks `expression`. `returnTypes` lists the result types the caller accepts
 * (cel-go spelling: 'string', 'bool', 'list(string)'), empty for any; a mismatch is the
 * reference's `must evaluate to T` / `must evaluate to one of [T U]`.
 */
export function compileCel(env: Environment, expression: string, returnTypes: readonly string[] = [], options: CelCompileOptions = {}): CelProgram {
  const { source } = options
  let parsed: ReturnType<Environment['parse']>
  try {
    parsed = env.parse(expression)
  } catch (err) {
    throw new CelCompileError(`compilation failed: ${issueText(source?.expression ?? expression, relocated(err as LocatedError, source))}`, 'compilation')
  }
  const checked = parsed.check()
  if (!checked.valid) {
    throw new CelCompileError(`compilation failed: ${issueText(source?.expression ?? expression, relocated(checked.error as unknown as LocatedError, source))}`, 'compilation')
  }
  const outputType = checked.type ?? 'dyn'
  if (returnTypes.length > 0 && !returnTypes.some((wanted) => matchesType(outputType, wanted))) {
    const reason = returnTypes.length === 1 ? `must evaluate to ${returnTypes[0]}` : `must evaluate to one of [${returnTypes.join(' ')}]`
    throw new CelCompileError(reason, 'type', celGoTypeName(outputType))
  }
  const ast = (parsed as unknown as { ast: AstNode }).ast
  const actualCost = runtimeCoster(ast)
  const limit = options.costLimit
  // Cost tracking wraps the nodes of its own copy of the AST, so untracked evaluations stay as fast.
  let tracked: { parsed: ReturnType<Environment['parse']>; run: ReturnType<typeof costTracker> } | undefined
  const evaluateWithCost = (activation: Record<string, unknown>, callLimit = limit): CelCostedResult => {
    if (!tracked) {
      const copy = env.parse(expression)
      copy.check()
      tracked = { parsed: copy, run: costTracker((copy as unknown as { ast: AstNode }).ast) }
    }
    const { parsed: copy, run } = tracked
    const r = run(() => copy(activation), callLimit)
    if (r.cancelled) return { error: new CelCostLimitError(r.cost), cost: r.cost }
    if (r.error !== undefined) return { error: evaluationError(r.error), cost: r.cost }
    return { value: r.value, cost: r.cost }
  }
  const evaluateUntracked = (activation: Record<string, unknown>): unknown => {
    try {
      return parsed(activation)
    } catch (err) {
      throw evaluationError(err)
    }
  }
  const evaluate = (activation: Record<string, unknown>): unknown => {
    if (limit === undefined) return evaluateUntracked(activation)
    const r = evaluateWithCost(activation)
    if (r.error) throw r.error
    return r.value
  }
  return {
    expression: source?.expression ?? expression,
    outputType: typeName(outputType),
    evaluate,
    evaluateJson: (activation) => toJson(evaluate(activation)),
    evaluateWithCost,
    evaluateUntracked,
    estimateCost: (sizes, costOptions) => new CostWalk(sizes ?? NO_SIZES, costOptions?.presenceTestHasCost === true).cost(ast),
    actualCost,
  }
}

function evaluationError(err: unknown): CelEvaluationError {
  return new CelEvaluationError((err as LocatedError).summary ?? (err as Error).message.split('\n')[0])
}

/** No declared sizes: the estimate treats every list, map and string as unbounded. */
const NO_SIZES: CostSizes = { actual: false, size: () => undefined, kind: () => undefined }

/** The checker's type against a cel-go type name; `dyn` results pass, as cel-go's `any` does. */
function matchesType(actual: string, wanted: string): boolean {
  if (wanted === 'any' || actual === 'dyn') return true
  const normalised = wanted.replace(/\(/g, '<').replace(/\)/g, '>').replace(/,\s*/g, ', ')
  return actual === normalised
}

/**
 * Where the parsed text came from when it is a rewrite of what the user wrote (construction.ts):
 * the original expression and the original offset of each offset of the text.
 */
export interface CelSource {
  readonly expression: string
  readonly offsets: readonly number[]
}

/** An error of the rewritten text with its offsets in the original expression. */
function relocated(err: LocatedError, source: CelSource | undefined): LocatedError {
  if (!source) return err
  const at = (offset: unknown) => (typeof offset === 'number' ? (source.offsets[Math.min(offset, source.offsets.length - 1)] ?? 0) : offset)
  const node = err.node as (Record<string, unknown> & { left?: Record<string, unknown> }) | undefined
  return {
    ...(err.summary !== undefined ? { summary: err.summary } : {}),
    message: err.message,
    ...(err.range ? { range: { start: at(err.range.start) as number, end: at(err.range.end) as number } } : {}),
    ...(node ? { node: { ...node, start: at(node.start), end: at(node.end), pos: at(node.pos), ...(node.left ? { left: { ...node.left, end: at(node.left.end) } } : {}) } } : {}),
  } as LocatedError
}

/** An issue at an offset of an expression, in cel-go's shape (for errors found before parsing). */
export function locatedIssue(expression: string, at: number, summary: string): string {
  return issueText(expression, { summary, message: summary, range: { start: at, end: at } })
}
