/**
 * Compiling an expression that constructs typed values (`Object{...}`, `JSONPatch{...}`), as
 * the reference compiles MutatingAdmissionPolicy mutations: the constructions are rewritten
 * into calls (construction.ts), their types registered on a copy of the environment
 * (libraries/mutation.ts), and errors reported against the expression as written.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { type CelProgram, CelCompileError, compileCel, locatedIssue } from './compile.js'
import { ConstructionError, rewriteConstructions } from './construction.js'
import { registerConstructions } from './libraries/mutation.js'

/** cel-go's words for a JSONPatch string field given another type. */
function fieldTypeMessage(message: string): string {
  // The engine words it `'__JSONPatch_op(int)'` or, in cel-go's shape, `'__JSONPatch_op' applied to '(int)'`.
  return message.replace(/found no matching overload for '__JSONPatch_(op|path|from)(?:\((.+?)\)'|' applied to '\((.+?)\)')/, (_m, field: string, type?: string, applied?: string) => {
    return `expected type of field '${field}' is 'string' but provided type is '${type ?? applied}'`
  })
}

export function compileConstructing(env: Environment, expression: string, returnTypes: readonly string[] = []): CelProgram {
  let rewritten: ReturnType<typeof rewriteConstructions>
  try {
    rewritten = rewriteConstructions(expression)
  } catch (err) {
    if (!(err instanceof ConstructionError)) throw err
    throw new CelCompileError(`compilation failed: ${locatedIssue(expression, err.at, err.message)}`, 'compilation')
  }
  const typed = env.clone()
  registerConstructions(typed, rewritten.constructions)
  try {
    return compileCel(typed, rewritten.text, returnTypes, { source: { expression, offsets: rewritten.offsets } })
  } catch (err) {
    if (err instanceof CelCompileError && err.kind === 'compilation') throw new CelCompileError(fieldTypeMessage(err.message), err.kind)
    throw err
  }
}
