/**
 * Sets of field paths as server-side apply tracks them (structured-merge-diff's fieldpath.Set)
 * and their wire form, the `fieldsV1` of a managedFields entry. A path element is kept as its
 * fieldsV1 key: `f:<field>`, `k:<json of the key fields>` (an item of an associative list),
 * `v:<json value>` (an item of a set), `i:<index>` (an item of an atomic list, rarely seen).
 * A set holds members (paths that end here) and children (paths that go deeper); a path that
 * is both shows in fieldsV1 as the `.` entry of its child object.
 */

export type PathElement = string

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 }

/** The reference's order of path elements: fields, then keys, then values, then indexes. */
function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = RANK[a[0]!] ?? 4
  const rb = RANK[b[0]!] ?? 4
  if (ra !== rb) return ra - rb
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2))
  return a < b ? -1 : a > b ? 1 : 0
}

export const fieldElement = (name: string): PathElement => `f:${name}`

/** The element of an associative-list item: its key fields sorted by name. */
export function keyElement(keys: Record<string, unknown>): PathElement {
  const sorted = Object.keys(keys).sort()
  return `k:${JSON.stringify(Object.fromEntries(sorted.map((k) => [k, keys[k]])))}`
}

export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`
export const indexElement = (index: number): PathElement => `i:${index}`

export class FieldSet {
  readonly members = new Set<PathElement>()
  readonly children = new Map<PathElement, FieldSet>()

  static of(...paths: PathElement[][]): FieldSet {
    const s = new FieldSet()
    for (const p of paths) s.insert(p)
    return s
  }

  insert(path: readonly PathElement[]): void {
    if (path.length === 0) return
    let node: FieldSet = this
    for (let i = 0; i < path.length - 1; i++) {
      let child = node.children.get(path[i]!)
      if (!child) {
        child = new FieldSet()
        node.children.set(path[i]!, child)
      }
      node = child
    }
    node.members.add(path[path.length - 1]!)
  }

  has(path: readonly PathElement[]): boolean {
    let node: FieldSet | undefined = this
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i]!)
    return node !== undefined && path.length > 0 && node.members.has(path[path.length - 1]!)
  }

  /** The subset under one element (empty when there is none). */
  child(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? new FieldSet()
  }

  isEmpty(): boolean {
    if (this.members.size > 0) return false
    for (const c of this.children.values()) if (!c.isEmpty()) return false
    return true
  }

  /** A copy sharing nothing with this set (results of set operations are changed later). */
  clone(): FieldSet {
    const out = new FieldSet()
    for (const m of this.members) out.members.add(m)
    for (const [pe, c] of this.children) out.children.set(pe, c.clone())
    return out
  }

  union(other: FieldSet): FieldSet {
    const out = new FieldSet()
    for (const m of this.members) out.members.add(m)
    for (const m of other.members) out.members.add(m)
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe)
      out.children.set(pe, o ? c.union(o) : c.clone())
    }
    for (const [pe, c] of other.children) if (!out.children.has(pe)) out.children.set(pe, c.clone())
    return out
  }

  difference(other: FieldSet): FieldSet {
    const out = new FieldSet()
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m)
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe)
      // Most subtrees have nothing taken away (whole specs against the stripped metadata): copied.
      const d = o ? c.difference(o) : c.clone()
      if (!d.isEmpty()) out.children.set(pe, d)
    }
    return out
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet()
    for (const m of this.members) if (other.members.has(m)) out.members.add(m)
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe)
      if (!o) continue
      const i = c.intersection(o)
      if (!i.isEmpty()) out.children.set(pe, i)
    }
    return out
  }

  /** Every member path, in the reference's order (a node before what is under it). */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = []
    const keys = [...new Set([...this.members, ...this.children.keys()])].sort(comparePathElements)
    for (const pe of keys) {
      const p = [...prefix, pe]
      if (this.members.has(pe)) out.push(p)
      const c = this.children.get(pe)
      if (c) out.push(...c.paths(p))
    }
    return out
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).isEmpty() && other.difference(this).isEmpty()
  }

  /** The fieldsV1 object of the set. */
  toFieldsV1(): Record<string, unknown> {
    return encode(this, false)
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const out = new FieldSet()
    decodeInto(out, fields, [])
    return out
  }
}

function encode(set: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const keys = [...new Set([...set.members, ...set.children.keys()])].sort(comparePathElements)
  if (includeSelf && keys.length > 0) out['.'] = {}
  for (const pe of keys) {
    const c = set.children.get(pe)
    if (!c || c.isEmpty()) out[pe] = {}
    else out[pe] = encode(c, set.members.has(pe))
  }
  return out
}

export class FieldsV1Error extends Error {}

const ELEMENT_RE = /^(f:|k:|v:|i:\d+$)/

function decodeInto(target: FieldSet, fields: unknown, path: PathElement[]): void {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new FieldsV1Error('expected an object')
  for (const [key, value] of Object.entries(fields)) {
    if (key === '.') continue
    if (!ELEMENT_RE.test(key)) throw new FieldsV1Error(`unknown path element type: ${JSON.stringify(key)}`)
    if (key[0] === 'k' || key[0] === 'v') JSON.parse(key.slice(2)) // must be valid JSON
    const p = [...path, key]
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldsV1Error('expected an object')
    const entries = Object.keys(value)
    if (entries.length === 0 || entries.includes('.')) target.insert(p)
    decodeInto(target, value, p)
  }
}

/** A path as the reference prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function pathString(path: readonly PathElement[]): string {
  let out = ''
  for (const pe of path) {
    const rest = pe.slice(2)
    switch (pe[0]) {
      case 'f':
        out += `.${rest}`
        break
      case 'k': {
        const keys = JSON.parse(rest) as Record<string, unknown>
        out += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${valueString(v)}`)
          .join(',')}]`
        break
      }
      case 'v':
        out += `[=${valueString(JSON.parse(rest))}]`
        break
      default:
        out += `[${rest}]`
    }
  }
  return out
}

function valueString(v: unknown): string {
  return JSON.stringify(v)
}
