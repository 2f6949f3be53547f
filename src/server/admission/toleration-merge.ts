/**
 * The reference's toleration set arithmetic (pkg/util/tolerations): a toleration is a superset
 * of another when it tolerates everything the other does; MergeTolerations keeps only the
 * supersets, VerifyAgainstWhitelist wants each toleration covered by one in the allow list.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Toleration } from './tolerations.js'

const str = (t: Toleration, name: string): string => (typeof t[name] === 'string' ? (t[name] as string) : '')
const seconds = (t: Toleration): number | undefined => (typeof t.tolerationSeconds === 'number' ? t.tolerationSeconds : undefined)

/** Go's semantic equality of two tolerations: an absent field is its empty value. */
function same(a: Toleration, b: Toleration): boolean {
  const plain = (t: Toleration) => ({ key: str(t, 'key'), operator: str(t, 'operator'), value: str(t, 'value'), effect: str(t, 'effect'), tolerationSeconds: seconds(t) ?? null })
  return isDeepStrictEqual(plain(a), plain(b))
}

/** Whether `ss` tolerates everything `t` does. */
export function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (same(t, ss)) return true
  // An empty key with Exists matches every key and value.
  if (str(t, 'key') !== str(ss, 'key') && (str(ss, 'key') !== '' || str(ss, 'operator') !== 'Exists')) return false
  // An empty effect matches every effect.
  if (str(t, 'effect') !== str(ss, 'effect') && str(ss, 'effect') !== '') return false
  if (str(ss, 'effect') === 'NoExecute' && seconds(ss) !== undefined) {
    const own = seconds(t)
    if (own === undefined || own > seconds(ss)!) return false
  }
  switch (str(ss, 'operator')) {
    case 'Equal':
    case '':
      return str(t, 'operator') === 'Equal' && str(t, 'value') === str(ss, 'value')
    case 'Exists':
      return true
    default:
      return false
  }
}

/** The two lists as one, a toleration another one covers dropped (of equal ones, the first kept). */
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

export function verifyAgainstWhitelist(tolerations: readonly Toleration[], whitelist: readonly Toleration[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)))
}
