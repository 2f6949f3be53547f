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
