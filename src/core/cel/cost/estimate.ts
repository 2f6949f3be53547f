/**
 * cel-go's cost arithmetic (checker/cost.go): ranges of cost units and of sizes as uint64 that
 * saturate at 2^64-1 instead of overflowing, and the unit costs of common/cost.go. Kept as
 * bigint so the numbers (and the reference's messages built from them) are exact.
 */

export const MAX_UINT64 = (1n << 64n) - 1n

/** common/cost.go. */
export const SELECT_AND_IDENT_COST = 1n
export const CONST_COST = 0n
export const LIST_CREATE_BASE_COST = 10n
export const MAP_CREATE_BASE_COST = 30n
export const STRUCT_CREATE_BASE_COST = 40n
export const STRING_TRAVERSAL_COST_FACTOR = 0.1
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25

/** A range of costs, or of sizes (string length in code points, bytes, list items, map entries). */
export interface Range {
  readonly min: bigint
  readonly max: bigint
}

export const UNKNOWN: Range = { min: 0n, max: MAX_UINT64 }

export function fixed(n: bigint | number): Range {
  const v = BigInt(n)
  return { min: v, max: v }
}

export function addU64(x: bigint, y: bigint): bigint {
  const s = x + y
  return s > MAX_UINT64 ? MAX_UINT64 : s
}

export function mulU64(x: bigint, y: bigint): bigint {
  const p = x * y
  return p > MAX_UINT64 ? MAX_UINT64 : p
}

const TWO_TO_64 = 2 ** 64

/** multiplyByCostFactor: the float product rounded up, saturating as Go's float64 arithmetic does. */
export function mulFactorU64(x: bigint, factor: number): bigint {
  const xf = Number(x)
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return MAX_UINT64
  const ceil = Math.ceil(xf * factor)
  if (ceil >= TWO_TO_64) return MAX_UINT64
  return BigInt(ceil)
}

export function add(a: Range, b: Range): Range {
  return { min: addU64(a.min, b.min), max: addU64(a.max, b.max) }
}

export function multiply(a: Range, b: Range): Range {
  return { min: mulU64(a.min, b.min), max: mulU64(a.max, b.max) }
}

export function multiplyByFactor(a: Range, factor: number): Range {
  return { min: mulFactorU64(a.min, factor), max: mulFactorU64(a.max, factor) }
}

export function union(a: Range, b: Range): Range {
  return { min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max }
}

export function sum(ranges: readonly Range[]): Range {
  return ranges.reduce(add, fixed(0))
}
