/**
 * The cel-go strings extension functions the reference enables (ext.Strings) that the
 * library's standard set lacks: charAt, replace, reverse. lowerAscii, upperAscii, trim,
 * indexOf, lastIndexOf, substring, split and join come with the library.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

/** Strings index by code point, as cel-go does. */
function codePoints(text: string): string[] {
  return Array.from(text)
}

export function registerStringsLibrary(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (text: string, index: bigint) => {
    const chars = codePoints(text)
    const i = Number(index)
    if (i < 0 || i > chars.length) throw new EvaluationError(`index out of range: ${i}`)
    return chars[i] ?? ''
  })
  env.registerFunction('string.replace(string, string): string', (text: string, from: string, to: string) => text.split(from).join(to))
  env.registerFunction('string.replace(string, string, int): string', (text: string, from: string, to: string, limit: bigint) => {
    const parts = text.split(from)
    const n = Number(limit)
    if (n < 0 || parts.length - 1 <= n) return parts.join(to)
    return `${parts.slice(0, n + 1).join(to)}${from}${parts.slice(n + 1).join(from)}`
  })
  env.registerFunction('string.reverse(): string', (text: string) => codePoints(text).reverse().join(''))
}
