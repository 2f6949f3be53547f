/**
 * The reference's template hashes (pkg/controller/controller_utils.go ComputeHash,
 * pkg/controller/history HashControllerRevision): FNV-32 over the template, the collision count
 * appended, the decimal of the sum rendered in rand.SafeEncodeString's alphabet (one letter per
 * digit, `alphanums[b % 27]`).
 *
 * Where this differs: the reference hashes the Go struct as go-spew prints it
 * (util/hash.DeepHashObject, `%#v` with sorted map keys); here the template is hashed as JSON
 * with sorted keys, so the names differ from a real cluster's while keeping their shape and
 * properties (stable for one template, different for another, changed by the collision count).
 */

/** k8s.io/apimachinery/pkg/util/rand's alphanums: no vowels, no confusable digits. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789'

export function safeEncodeString(s: string): string {
  let out = ''
  for (const b of Buffer.from(s)) out += ALPHANUMS[b % ALPHANUMS.length]
  return out
}

export function fnv32a(data: Buffer, hash = 0x811c9dc5): number {
  let h = hash
  for (const b of data) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/** hash/fnv's New32 (multiply, then xor), as HashControllerRevision uses. */
export function fnv32(data: Buffer, hash = 0x811c9dc5): number {
  let h = hash
  for (const b of data) {
    h = Math.imul(h, 0x01000193) >>> 0
    h ^= b
  }
  return h >>> 0
}

/** JSON with object keys sorted, so one template always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/** ComputeHash(template, collisionCount): the collision count as 8 little-endian bytes (its uint32 in the first four). */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(canonicalJson(template)))
  if (collisionCount !== undefined && collisionCount !== null) {
    const bytes = Buffer.alloc(8)
    bytes.writeUInt32LE(collisionCount >>> 0, 0)
    h = fnv32a(bytes, h)
  }
  return safeEncodeString(String(h))
}

/** HashControllerRevision(revision, probe): FNV-32 over the revision's raw data, the probe's decimal appended. */
export function hashControllerRevision(raw: string, probe?: number): string {
  let h = fnv32(Buffer.from(raw))
  if (probe !== undefined && probe !== null) h = fnv32(Buffer.from(String(probe)), h)
  return safeEncodeString(String(h))
}
