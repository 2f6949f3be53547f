/** Loose readers of decoded objects for the validation files (absent or mistyped is empty). */
import { isPlainObject } from '../registry/object.js'

export type Obj = Record<string, unknown>

export function obj(v: unknown): Obj {
  return isPlainObject(v) ? v : {}
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : []
}
export function str(v: unknown, fallback = ''): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : fallback
}

/**
 * Equality of decoded objects as the reference's semantic DeepEqual of Go structs sees it:
 * an absent field, null, "", an empty list and an empty map are all the zero value.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(zeroless(a) ?? null) === JSON.stringify(zeroless(b) ?? null)
}

function zeroless(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => zeroless(x) ?? null)
  if (v && typeof v === 'object') {
    const out: Obj = {}
    for (const k of Object.keys(v).sort()) {
      const z = zeroless((v as Obj)[k])
      if (z !== undefined && z !== null && z !== '') out[k] = z
    }
    return Object.keys(out).length === 0 ? undefined : out
  }
  return v
}

/**
 * A template's labels as the reference's error shows them: `spec.Template.Labels`, a nil map
 * (printed `null`) when the template has none, not an empty one.
 */
export function templateLabels(template: unknown): unknown {
  return (template as { metadata?: { labels?: unknown } } | null | undefined)?.metadata?.labels ?? null
}
