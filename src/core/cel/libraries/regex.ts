/**
 * The Kubernetes regex library: find and findAll. Patterns run on JavaScript's RegExp, not
 * RE2; the difference (backreferences and lookaround accepted here) is noted in docs/cel.md.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

function compile(pattern: string, flags = ''): RegExp {
  try {
    return new RegExp(pattern, flags)
  } catch (err) {
    throw new EvaluationError(`error parsing regexp: ${(err as Error).message}`)
  }
}

export function registerRegexLibrary(env: Environment): void {
  env.registerFunction('string.find(string): string', (text: string, pattern: string) => compile(pattern).exec(text)?.[0] ?? '')
  env.registerFunction('string.findAll(string): list<string>', (text: string, pattern: string) => [...text.matchAll(compile(pattern, 'g'))].map((m) => m[0]))
  env.registerFunction('string.findAll(string, int): list<string>', (text: string, pattern: string, limit: bigint) => {
    const all = [...text.matchAll(compile(pattern, 'g'))].map((m) => m[0])
    return limit < 0n ? all : all.slice(0, Number(limit))
  })
}
