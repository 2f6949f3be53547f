/**
 * Tolerations as the reference's helpers compare and add them (pkg/apis/core/helper
 * AddOrUpdateTolerationInPod, Toleration.MatchToleration): a toleration matches another with
 * the same key, operator, value and effect; an absent field is the empty string.
 */
import { isDeepStrictEqual } from 'node:util'
import { isPlainObject } from '../api/registry/object.js'

export type Toleration = Record<string, unknown>

const field = (t: Toleration, name: string): unknown => t[name] ?? ''

export function matchToleration(a: Toleration, b: Toleration): boolean {
  return ['key', 'operator', 'value', 'effect'].every((name) => field(a, name) === field(b, name))
}

/** The spec's tolerations (plain objects only). */
export function tolerationsOf(spec: Record<string, unknown>): Toleration[] {
  return Array.isArray(spec.tolerations) ? spec.tolerations.filter(isPlainObject) : []
}

/**
 * Adds `toleration` to the spec, replacing one it matches; false when the very same one is
 * there already.
 */
export function addOrUpdateToleration(spec: Record<string, unknown>, toleration: Toleration): boolean {
  const current = tolerationsOf(spec)
  let updated = false
  const next: Toleration[] = []
  for (const t of current) {
    if (!matchToleration(toleration, t)) {
      next.push(t)
      continue
    }
    if (isDeepStrictEqual(t, toleration)) return false
    next.push(toleration)
    updated = true
  }
  if (!updated) next.push(toleration)
  spec.tolerations = next
  return true
}
