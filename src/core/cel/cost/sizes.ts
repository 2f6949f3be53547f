/**
 * Where the cost walk gets the sizes of the data an expression reads: from declared types
 * (the static estimate, as the reference's sizeEstimator in apiextensions-apiserver's
 * compilation.go) or from the values being evaluated (the runtime cost).
 */
import { Optional } from '@marcbachmann/cel-js'
import { type CelDeclKind, type CelDeclType, type ValueKind, declAt } from './decl.js'
import type { Range } from './estimate.js'

export interface CostSizes {
  /** The size range of the data at a cost path (variable, fields, `@items`/`@values`/`@keys`), or undefined. */
  size(path: readonly string[]): Range | undefined
  /** The declared kind at a cost path, where known. */
  kind(path: readonly string[]): CelDeclKind | undefined
  /** Whether sizes are the evaluated values' (runtime cost) rather than declared bounds. */
  readonly actual: boolean
  /** A size by the value's kind where its path tells none (cel-go hands the estimator both). */
  typeSize?(kind: ValueKind): Range | undefined
}

/**
 * The reference's sizeEstimator: every path is walked from the root type, its first element
 * (the variable) skipped, so `self` and `oldSelf` share it; the size is 0 to MaxElements.
 */
export function declaredSizes(root: CelDeclType): CostSizes {
  return {
    actual: false,
    size(path) {
      if (path.length === 0) return undefined
      const decl = declAt(root, path.slice(1))
      return decl ? { min: 0n, max: decl.maxElements } : undefined
    },
    kind(path) {
      return path.length === 0 ? undefined : declAt(root, path.slice(1))?.kind
    },
  }
}

/** Declared types per variable, for environments whose variables have different types. */
export function declaredSizesByVariable(types: Readonly<Record<string, CelDeclType>>): CostSizes {
  return {
    actual: false,
    size(path) {
      const root = path.length > 0 ? types[path[0]!] : undefined
      const decl = root ? declAt(root, path.slice(1)) : undefined
      return decl ? { min: 0n, max: decl.maxElements } : undefined
    },
    kind(path) {
      const root = path.length > 0 ? types[path[0]!] : undefined
      return root ? declAt(root, path.slice(1))?.kind : undefined
    },
  }
}

/** cel-go's actualSize: size() of strings (code points), bytes, lists and maps; 1 for anything else. */
export function actualSize(value: unknown): bigint {
  if (typeof value === 'string') {
    let n = 0
    for (const _ of value) n++
    return BigInt(n)
  }
  if (value instanceof Uint8Array || Array.isArray(value)) return BigInt(value.length)
  if (value instanceof Map || value instanceof Set) return BigInt(value.size)
  if (value instanceof Optional) return value.hasValue() ? actualSize(value.value()) : 1n
  if (value !== null && typeof value === 'object' && value.constructor === Object) return BigInt(Object.keys(value).length)
  return 1n
}

function children(value: unknown, step: string): unknown[] {
  if (value instanceof Optional) return value.hasValue() ? children(value.value(), step) : []
  switch (step) {
    case '@items':
      return Array.isArray(value) ? value : []
    case '@values':
      if (value instanceof Map) return [...value.values()]
      if (Array.isArray(value)) return value
      return value !== null && typeof value === 'object' ? Object.values(value) : []
    case '@keys':
      if (value instanceof Map) return [...value.keys()]
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : []
    default: {
      const v = value instanceof Map ? value.get(step) : value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined
      return v === undefined ? [] : [v]
    }
  }
}

/** The smallest and largest size of the values at a path of an activation (all items of a list). */
export function valuesSize(activation: Readonly<Record<string, unknown>>, path: readonly string[]): Range | undefined {
  if (path.length === 0 || !Object.hasOwn(activation, path[0]!)) return undefined
  const root = activation[path[0]!]
  let values: unknown[] = root === undefined ? [] : [root]
  for (let i = 1; i < path.length; i++) {
    const step = path[i]!
    values = values.length === 1 ? children(values[0], step) : values.flatMap((v) => children(v, step))
  }
  let range: Range | undefined
  for (const v of values) {
    const s = actualSize(v)
    range = range ? { min: s < range.min ? s : range.min, max: s > range.max ? s : range.max } : { min: s, max: s }
  }
  return range
}

/** The sizes of the values an activation holds: every value at a path (all items of a list), smallest and largest. */
export function activationSizes(activation: Readonly<Record<string, unknown>>): CostSizes {
  const cache = new Map<string, Range | undefined>()
  return {
    actual: true,
    size(path) {
      const key = path.join('\u0000')
      if (cache.has(key)) return cache.get(key)
      const range = valuesSize(activation, path)
      cache.set(key, range)
      return range
    },
    kind() {
      return undefined
    },
  }
}
