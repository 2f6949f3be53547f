/** Go text/template comparison functions (eq, ne, lt, le, gt, ge) over the value model. */
import { isInt } from './values.js'

export type CmpValue =
  | { kind: 'invalid' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: bigint }
  | { kind: 'uint'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'other'; value: unknown }

const errBadComparisonType = 'invalid type for comparison'
const errBadComparison = 'incompatible types for comparison'
export const errNoComparison = 'missing argument for comparison'

export function fromGo(v: unknown): CmpValue {
  if (v === null || v === undefined) return { kind: 'invalid' }
  if (typeof v === 'boolean') return { kind: 'bool', value: v }
  if (typeof v === 'string') return { kind: 'string', value: v }
  if (isInt(v)) return { kind: 'int', value: BigInt(v) }
  if (typeof v === 'number') return { kind: 'float', value: v }
  return { kind: 'other', value: v }
}

function basic(v: CmpValue): boolean {
  return v.kind !== 'invalid' && v.kind !== 'other'
}

function intUintEq(a: CmpValue, b: CmpValue): boolean | undefined {
  if (a.kind === 'int' && b.kind === 'uint') return a.value >= 0n && a.value === b.value
  if (a.kind === 'uint' && b.kind === 'int') return b.value >= 0n && a.value === b.value
  return undefined
}

/**
 * eq. `strict` is the older semantics of client-go's forked template package (used by jsonpath):
 * nil and non-basic values are errors. Otherwise Go 1.18+ text/template semantics.
 */
export function goEqual(a: CmpValue, bs: CmpValue[], strict = true, describe?: (v: CmpValue) => [string, string]): boolean {
  if (strict && !basic(a)) throw new Error(errBadComparisonType)
  if (bs.length === 0) throw new Error(errNoComparison)
  for (const b of bs) {
    if (strict && !basic(b)) throw new Error(errBadComparisonType)
    let truth = false
    const ka = basic(a) ? a.kind : 'invalid'
    const kb = basic(b) ? b.kind : 'invalid'
    if (ka !== kb) {
      const iu = intUintEq(a, b)
      if (iu !== undefined) truth = iu
      else if (a.kind !== 'invalid' && b.kind !== 'invalid') throw new Error(errBadComparison)
    } else if (a.kind === 'invalid' || a.kind === 'other' || b.kind === 'invalid' || b.kind === 'other') {
      if (a.kind === 'invalid' || b.kind === 'invalid') truth = a.kind === b.kind
      else {
        const [text, type] = describe ? describe(b) : ['?', '?']
        throw new Error(`non-comparable type ${text}: ${type}`)
      }
    } else {
      truth = (a as { value: unknown }).value === (b as { value: unknown }).value
    }
    if (truth) return true
  }
  return false
}

/** Returns <0, 0, >0 like Go's lt/gt would decide; throws Go's messages. */
export function compare(a: CmpValue, b: CmpValue): number {
  if (!basic(a) || !basic(b)) throw new Error(errBadComparisonType)
  if (a.kind !== b.kind) {
    if (a.kind === 'int' && b.kind === 'uint') return a.value < 0n ? -1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0
    if (a.kind === 'uint' && b.kind === 'int') return b.value < 0n ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0
    throw new Error(errBadComparison)
  }
  if (a.kind === 'bool') throw new Error(errBadComparisonType)
  const x = (a as { value: number | bigint | string }).value
  const y = (b as { value: number | bigint | string }).value
  return x < y ? -1 : x > y ? 1 : 0
}
