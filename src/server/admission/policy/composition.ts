/**
 * A policy's expressions compiled together with its `variables` (the reference's plugin/cel
 * CompositedCompiler and activation): each expression is compiled once in the admission
 * environment (`object`, `oldObject`, `request`, `namespaceObject`, `variables`, `params` when
 * the policy has a paramKind, `authorizer` where the reference declares it), and evaluated in an
 * activation whose `variables` are computed lazily, at most once per activation, on first use.
 * Failures carry the reference's messages: `compilation error: compilation failed: ERROR: ...`,
 * `expression '<e>' resulted in error: <cause>`, `composited variable "<v>" fails to evaluate: ...`.
 *
 * Cost: no runtime cost budget is applied here; the evaluation goes through `evaluate` below,
 * the one place a per-call or per-request budget would be charged.
 */
import { COST_LIMIT_EXCEEDED, CelCompileError, CelCostBudget, type CelProgram, OUT_OF_BUDGET, compileCel, fromJson } from '../../../core/cel/index.js'
import { admissionEnvironment } from '../../api/validation/admissionregistration.js'

/** What an expression may use besides the always-declared variables. */
export interface ExpressionOptions {
  readonly hasParams: boolean
  readonly hasAuthorizer: boolean
  /** The JSON patch types' library (`jsonpatch.escapeKey`), for mutations. */
  readonly patchTypes?: boolean
}

/** One compiled expression, or why it did not compile (the reference's CompilationResult). */
export interface CompiledExpression {
  readonly expression: string
  readonly program?: CelProgram
  /** `compilation failed: ERROR: ...` or `must evaluate to bool but got int`. */
  readonly error?: string
}

/**
 * Compiles `expression`; `returnTypes` in cel-go spelling (`bool`, `string`, `null_type`), empty
 * for any. A mismatch reads as the reference's compiler: `must evaluate to T but got U`.
 */
export function compileExpression(expression: string, options: ExpressionOptions, returnTypes: readonly string[] = []): CompiledExpression {
  const env = admissionEnvironment(options.hasParams, options.hasAuthorizer, options.patchTypes === true)
  let program: CelProgram
  try {
    program = compileCel(env, expression)
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    return { expression, error: err.message }
  }
  const actual = celGoType(program.outputType)
  if (returnTypes.length > 0 && actual !== 'dyn' && !returnTypes.includes(actual)) {
    const wanted = returnTypes.length === 1 ? returnTypes[0] : `one of [${returnTypes.join(' ')}]`
    return { expression, error: `must evaluate to ${wanted} but got ${actual}` }
  }
  return { expression, program }
}

/** The engine's type name in cel-go's spelling. */
export function celGoType(type: string): string {
  if (type === 'null') return 'null_type'
  return type.replace(/</g, '(').replace(/>/g, ')')
}

/** A policy's variables, compiled in order (a later one may use an earlier one). */
export class CompiledVariables {
  readonly entries: ReadonlyArray<{ name: string; compiled: CompiledExpression }>
  readonly byName: ReadonlyMap<string, CompiledExpression>

  constructor(variables: ReadonlyArray<{ name: string; expression: string }>, options: ExpressionOptions) {
    this.entries = variables.map((v) => ({ name: v.name, compiled: compileExpression(v.expression, options) }))
    this.byName = new Map(this.entries.map((e) => [e.name, e.compiled]))
  }
}

/**
 * The inputs of one evaluation as CEL values (see `celValue`): a request converts its object
 * and old object once for every policy and binding it meets.
 */
export interface ActivationInput {
  readonly object: unknown
  readonly oldObject: unknown
  readonly request: unknown
  readonly namespaceObject: unknown
  readonly params: unknown
  /**
   * The `authorizer` variable's value (see authorizer.ts), for the expressions that declare it;
   * absent: the variable is unbound.
   */
  readonly authorizer?: unknown
}

/** A JSON value (an object, a param, the request) as the activation takes it; absent is null. */
export function celValue(json: unknown): unknown {
  return fromJson(json ?? null)
}

export type EvaluationResult = { readonly value: unknown; readonly error?: undefined } | { readonly value?: undefined; readonly error: string }

const NO_VARIABLES: Map<string, unknown> = new Map()

/** The variables of one request: the activation expressions are evaluated against. */
export class PolicyActivation {
  private readonly values: Record<string, unknown>
  /**
   * The runtime cost every expression of this evaluation draws from (the reference's
   * remainingBudget, RuntimeCELCostBudget), each held to the per-call limit; once spent,
   * nothing further runs.
   */
  private readonly budget = new CelCostBudget()

  constructor(input: ActivationInput, variables: CompiledVariables | undefined) {
    this.values = {
      object: input.object,
      oldObject: input.oldObject,
      request: input.request,
      namespaceObject: input.namespaceObject,
      params: input.params,
      variables: this.lazyVariables(variables),
    }
    if (input.authorizer !== undefined) this.values.authorizer = input.authorizer
  }

  /**
   * Each variable computed on first read, its value or error kept for the activation's life:
   * a Map whose `get` evaluates (the engine reads map fields through `get`), made without a
   * property per variable so that a request meeting many policies allocates little.
   */
  private lazyVariables(variables: CompiledVariables | undefined): Map<string, unknown> {
    const entries = variables?.byName
    // Without variables, one empty map for every activation (the engine only reads it).
    if (!entries || entries.size === 0) return NO_VARIABLES
    const lazy = new Map<string, unknown>()
    const memo = new Map<string, EvaluationResult>()
    const get = (name: string): unknown => {
      const compiled = entries.get(name)
      if (!compiled) return undefined
      let result = memo.get(name)
      if (!result) memo.set(name, (result = this.variable(name, compiled)))
      if (result.error !== undefined) throw new Error(result.error)
      return result.value
    }
    // The variables' names are the map's keys (for `in`, size() and iteration); their values are read through get.
    for (const name of entries.keys()) Map.prototype.set.call(lazy, name, undefined)
    Object.defineProperty(lazy, 'get', { value: get })
    return lazy
  }

  private variable(name: string, compiled: CompiledExpression): EvaluationResult {
    if (!compiled.program) return { error: `composited variable "${name}" fails to compile: ${compiled.error ?? ''}` }
    const r = this.budget.evaluate(compiled.program, this.values)
    if (r.outcome === 'budget') return { error: OUT_OF_BUDGET }
    if (r.outcome === 'limit') return { error: `composited variable "${name}" fails to evaluate: ${COST_LIMIT_EXCEEDED}` }
    if (r.error) return { error: `composited variable "${name}" fails to evaluate: ${runtimeMessage(r.error)}` }
    return { value: r.value }
  }

  /**
   * Evaluates a compiled expression: its CEL value, or the reference's error text. An
   * expression whose functions answer asynchronously (an authorizer that does) evaluates to a
   * Promise of the same.
   */
  evaluate(compiled: CompiledExpression): EvaluationResult | Promise<EvaluationResult> {
    if (!compiled.program) return { error: `compilation error: ${compiled.error ?? ''}` }
    const failed = (err: unknown): EvaluationResult => ({ error: `expression '${compiled.expression}' resulted in error: ${runtimeMessage(err as Error)}` })
    const r = this.budget.evaluate(compiled.program, this.values)
    if (r.outcome === 'budget') return { error: OUT_OF_BUDGET }
    if (r.outcome === 'limit') return failed(new Error(COST_LIMIT_EXCEEDED))
    if (r.error) return failed(r.error)
    // The part an asynchronous authorizer answers after is not charged.
    if (isPromise(r.value)) return r.value.then((v) => ({ value: v }), failed)
    return { value: r.value }
  }
}

function isPromise(value: unknown): value is Promise<unknown> {
  return value instanceof Promise
}

/** A runtime error in cel-go's words where the two libraries differ. */
function runtimeMessage(err: Error): string {
  const message = err.message
  if (message.startsWith('composited variable ')) return message
  if (/^no such overload/i.test(message)) return 'no such overload'
  return message.replace(/^No such key: /, 'no such key: ')
}
