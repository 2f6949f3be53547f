/**
 * The Kubernetes lists library (isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's
 * lists extension slice and flatten, as the reference registers them for its expressions.
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

type Comparable = bigint | number | string | boolean

function compare(a: Comparable, b: Comparable): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a === 'object' && typeof b === 'object') return JSON.stringify(a, jsonBigint) === JSON.stringify(b, jsonBigint)
  return false
}

function jsonBigint(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value
}

export function registerListsLibrary(env: Environment): void {
  for (const element of ['int', 'uint', 'double', 'string', 'bool']) {
    env.registerFunction(`list<${element}>.isSorted(): bool`, (list: Comparable[]) => list.every((item, i) => i === 0 || compare(list[i - 1], item) <= 0))
    env.registerFunction(`list<${element}>.min(): ${element}`, (list: Comparable[]) => {
      if (list.length === 0) throw new EvaluationError('min called on empty list')
      return list.reduce((a, b) => (compare(b, a) < 0 ? b : a))
    })
    env.registerFunction(`list<${element}>.max(): ${element}`, (list: Comparable[]) => {
      if (list.length === 0) throw new EvaluationError('max called on empty list')
      return list.reduce((a, b) => (compare(b, a) > 0 ? b : a))
    })
  }
  env.registerFunction('list<int>.sum(): int', (list: bigint[]) => list.reduce((a, b) => a + b, 0n))
  env.registerFunction('list<double>.sum(): double', (list: number[]) => list.reduce((a, b) => a + b, 0))
  env.registerFunction('list<A>.indexOf(A): int', (list: unknown[], item: unknown) => BigInt(list.findIndex((x) => equal(x, item))))
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: unknown[], item: unknown) => {
    for (let i = list.length - 1; i >= 0; i--) if (equal(list[i], item)) return BigInt(i)
    return -1n
  })
  env.registerFunction('list<A>.slice(int, int): list<A>', (list: unknown[], from: bigint, to: bigint) => {
    const start = Number(from)
    const end = Number(to)
    if (start < 0 || end < 0) throw new EvaluationError(`cannot slice(${start}, ${end}), negative indexes not supported`)
    if (start > end) throw new EvaluationError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`)
    if (end > list.length) throw new EvaluationError(`cannot slice(${start}, ${end}), list is length ${list.length}`)
    return list.slice(start, end)
  })
  env.registerFunction('list<list<A>>.flatten(): list<A>', (list: unknown[][]) => list.flat())
}
