/**
 * Two lists of tolerations as one (the reference's pkg/util/tolerations MergeTolerations):
 * the first list then the second, without a toleration another one already covers; of two
 * equal ones, the first stays.
 */
import { isDeepStrictEqual } from 'node:util'

export interface Toleration {
  key?: string
  operator?: string
  value?: string
  effect?: string
  tolerationSeconds?: number
  [field: string]: unknown
}

export function mergeTolerations(first: readonly Toleration[], second: readonly Toleration[]): Toleration[] {
  const all = [...first, ...second]
  const merged: Toleration[] = []
  all.forEach((t, i) => {
    if (merged.some((kept) => isSuperset(kept, t))) return
    if (all.slice(i + 1).some((later) => !same(t, later) && isSuperset(later, t))) return
    merged.push(t)
  })
  return merged
}

/** Whether `ss` tolerates everything `t` does (the reference's isSuperset). */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (same(ss, t)) return true
  // An empty key with Exists matches every key and value.
  if ((t.key ?? '') !== (ss.key ?? '') && ((ss.key ?? '') !== '' || ss.operator !== 'Exists')) return false
  // An empty effect matches every effect.
  if ((t.effect ?? '') !== (ss.effect ?? '') && (ss.effect ?? '') !== '') return false
  if (ss.effect === 'NoExecute' && ss.tolerationSeconds != null) {
    if (t.tolerationSeconds == null || t.tolerationSeconds > ss.tolerationSeconds) return false
  }
  switch (ss.operator ?? '') {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && (t.value ?? '') === (ss.value ?? '')
    case 'Exists':
      return true
    default:
      return false
  }
}

/** Semantic equality: an absent field is its empty value. */
function same(a: Toleration, b: Toleration): boolean {
  const plain = (t: Toleration) => ({ key: t.key ?? '', operator: t.operator ?? '', value: t.value ?? '', effect: t.effect ?? '', tolerationSeconds: t.tolerationSeconds ?? null })
  return isDeepStrictEqual(plain(a), plain(b))
}
