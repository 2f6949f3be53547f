/**
 * The walks over an object and its type that server-side apply is made of (structured-merge-
 * diff's typed package): the field set of an object, the comparison of two versions (added,
 * modified, removed paths), the merge of an applied configuration into the live object, and
 * the removal of a set of paths. Objects are plain JSON values; `undefined` is an absent field,
 * `null` a present one.
 */
import { FieldSet, type PathElement, fieldElement, indexElement, keyElement, pathString, valueElement } from './fieldpath.js'
import { type TypeNode, fieldType, isNamedField, resolve } from './schema.js'

type Obj = Record<string, unknown>
type ListNode = TypeNode & { k: 'list' }
type MapNode = TypeNode & { k: 'map' }

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export class ApplySchemaError extends Error {}

/** The path element of one item of a (non-atomic) list. */
function itemElement(list: ListNode, index: number, item: unknown): PathElement {
  if (list.type === 'map' && list.keys.length > 0) {
    const keys: Obj = {}
    for (const k of list.keys) {
      const v = isObj(item) ? item[k] : undefined
      if (v !== undefined) keys[k] = v
      else if (list.keyDefaults[k] !== undefined) keys[k] = list.keyDefaults[k]
      else throw new ApplySchemaError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`)
    }
    return keyElement(keys)
  }
  if (list.type === 'atomic') return indexElement(index)
  return valueElement(item)
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]))
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    return ka.length === kb.length && ka.every((k) => equal(a[k], b[k]))
  }
  return false
}

const isEmptyContainer = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0)

/**
 * How a pair of values is walked: 'leaf' (compared or replaced whole), or as a list or map.
 * Atomic types, scalars, values whose shapes differ and two empty containers are leaves.
 */
function shape(node: TypeNode, l: unknown, r: unknown): { kind: 'leaf' } | { kind: 'list'; node: ListNode } | { kind: 'map'; node: MapNode } {
  const n = resolve(node, r !== undefined && r !== null ? r : l)
  if (n.k === 'scalar' || n.k === 'deduced') return { kind: 'leaf' }
  if (n.k === 'list' ? n.type === 'atomic' : n.atomic) return { kind: 'leaf' }
  if (isEmptyContainer(l) && isEmptyContainer(r)) return { kind: 'leaf' }
  const fits = n.k === 'list' ? (v: unknown) => v === undefined || v === null || Array.isArray(v) : (v: unknown) => v === undefined || v === null || isObj(v)
  if (!fits(l) || !fits(r)) return { kind: 'leaf' }
  return n.k === 'list' ? { kind: 'list', node: n } : { kind: 'map', node: n as MapNode }
}

function indexItems(list: ListNode, items: unknown): { order: PathElement[]; byElement: Map<PathElement, unknown> } {
  const order: PathElement[] = []
  const byElement = new Map<PathElement, unknown>()
  if (!Array.isArray(items)) return { order, byElement }
  items.forEach((item, i) => {
    const pe = itemElement(list, i, item)
    if (byElement.has(pe)) return
    byElement.set(pe, item)
    order.push(pe)
  })
  return { order, byElement }
}

/**
 * What keeps a value from being typed by the schema (the reference's messages, prefixed by the
 * path): fields a struct does not declare, list items without their keys, values of the wrong
 * shape where a list or map is expected.
 */
export function validationErrors(value: unknown, node: TypeNode): string[] {
  const errs: string[] = []
  validateAt(value, node, [], errs)
  return errs
}

function validateAt(value: unknown, node: TypeNode, path: PathElement[], errs: string[]): void {
  const n = resolve(node, value)
  if (value === null || value === undefined || n.k === 'scalar' || n.k === 'deduced') return
  const at = pathString(path)
  if (n.k === 'list') {
    if (!Array.isArray(value)) return void errs.push(`${at}: expected list, got ${goKind(value)}`)
    const seen = new Set<PathElement>()
    value.forEach((item, i) => {
      let pe: PathElement
      try {
        pe = itemElement(n, i, item)
      } catch (err) {
        return void errs.push(`${at}: element ${i}: ${(err as Error).message}`)
      }
      if (seen.has(pe)) return void errs.push(`${at}: duplicate entries for key ${pathString([pe])}`)
      seen.add(pe)
      validateAt(item, n.elem, [...path, pe], errs)
    })
    return
  }
  if (!isObj(value)) return void errs.push(`${at}: expected map, got ${goKind(value)}`)
  for (const [k, v] of Object.entries(value)) {
    const p = [...path, fieldElement(k)]
    if (!isNamedField(n, k) && n.elem === undefined) {
      errs.push(`${pathString(p)}: field not declared in schema`)
      continue
    }
    validateAt(v, fieldType(n, k), p, errs)
  }
}

function goKind(v: unknown): string {
  if (Array.isArray(v)) return 'list'
  if (isObj(v)) return 'map'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64'
  if (typeof v === 'boolean') return 'bool'
  return 'string'
}

/** The field set of an object: its leaves, list items and map entries (not struct fields). */
export function toFieldSet(value: unknown, node: TypeNode): FieldSet {
  const set = new FieldSet()
  collect(value, node, [], set)
  return set
}

function collect(value: unknown, node: TypeNode, path: PathElement[], set: FieldSet): void {
  const n = resolve(node, value)
  if (n.k === 'scalar' || n.k === 'deduced') return set.insert(path)
  if (n.k === 'list') {
    if (n.type === 'atomic') return set.insert(path)
    if (!Array.isArray(value)) return
    const { order, byElement } = indexItems(n, value)
    for (const pe of order) {
      const p = [...path, pe]
      collect(byElement.get(pe), n.elem, p, set)
      set.insert(p)
    }
    return
  }
  if (n.atomic) return set.insert(path)
  if (!isObj(value)) return
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue
    const p = [...path, fieldElement(k)]
    collect(v, fieldType(n, k), p, set)
    if (!isNamedField(n, k)) set.insert(p)
  }
}

interface Comparison {
  added: FieldSet
  modified: FieldSet
  removed: FieldSet
}

/** What changed from `lhs` to `rhs`, path by path. */
export function compare(lhs: unknown, rhs: unknown, node: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() }
  compareAt(lhs, rhs, node, [], c)
  return c
}

/**
 * A field of a present built-in struct as the reference sees it after Go's serialization: a
 * struct held by value is there (`{}`) and a list or map without omitempty too (null), even
 * when the JSON leaves them out. So they never "appear" and are never owned themselves.
 */
function asGoSerializes(node: MapNode, parent: unknown, key: string, value: unknown): unknown {
  if (value !== undefined || parent === undefined) return value
  if (node.values?.has(key)) return {}
  if (node.required?.has(key)) return null
  return undefined
}

function compareAt(l: unknown, r: unknown, node: TypeNode, path: PathElement[], c: Comparison): void {
  const s = shape(node, l, r)
  if (s.kind === 'leaf') {
    if (l === undefined) c.added.insert(path)
    else if (r === undefined) c.removed.insert(path)
    else if (!equal(l, r)) c.modified.insert(path)
    return
  }
  // `path` is one array for the whole walk, extended and restored around each step (the
  // field sets copy what they keep): a copy per step cost more than the comparison.
  if (s.kind === 'list') {
    const left = indexItems(s.node, l)
    const right = indexItems(s.node, r)
    for (const pe of left.order) {
      path.push(pe)
      compareAt(left.byElement.get(pe), right.byElement.get(pe), s.node.elem, path, c)
      path.pop()
    }
    for (const pe of right.order) {
      if (left.byElement.has(pe)) continue
      path.push(pe)
      compareAt(undefined, right.byElement.get(pe), s.node.elem, path, c)
      path.pop()
    }
  } else {
    const lo = isObj(l) ? l : {}
    const ro = isObj(r) ? r : {}
    const keys = new Set(Object.keys(lo))
    for (const k of Object.keys(ro)) keys.add(k)
    if (s.node.values) for (const k of s.node.values) keys.add(k)
    if (s.node.required) for (const k of s.node.required) keys.add(k)
    for (const k of keys) {
      const lv = asGoSerializes(s.node, l, k, lo[k])
      const rv = asGoSerializes(s.node, r, k, ro[k])
      if (lv === undefined && rv === undefined) continue
      path.push(fieldElement(k))
      compareAt(lv, rv, fieldType(s.node, k), path, c)
      path.pop()
    }
  }
  if (path.length === 0) return
  if (l === undefined) c.added.insert(path)
  else if (r === undefined) c.removed.insert(path)
}

/**
 * `rhs` merged into `lhs`: leaves of `rhs` win, lists and maps merge item by item, atomic
 * values are replaced. Shared list items take the order of `rhs`; items only in `lhs` stay
 * where they were.
 */
export function merge(lhs: unknown, rhs: unknown, node: TypeNode): unknown {
  // What the configuration does not touch is kept as it is, duplicate list items included.
  if (rhs === undefined) return structuredClone(lhs)
  const s = shape(node, lhs, rhs)
  if (s.kind === 'leaf') return rhs !== undefined ? structuredClone(rhs) : structuredClone(lhs)
  if (s.kind === 'map') {
    const lo = isObj(lhs) ? lhs : {}
    const ro = isObj(rhs) ? rhs : {}
    const out: Obj = {}
    for (const k of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
      if (lo[k] === undefined && ro[k] === undefined) continue
      const v = merge(lo[k], ro[k], fieldType(s.node, k))
      if (v !== undefined) out[k] = v
    }
    return out
  }
  const left = indexItems(s.node, lhs)
  const right = indexItems(s.node, rhs)
  const out: unknown[] = []
  const item = (pe: PathElement) => merge(left.byElement.get(pe), right.byElement.get(pe), s.node.elem)
  const emitted = new Set<PathElement>()
  const emit = (pe: PathElement) => {
    emitted.add(pe)
    out.push(item(pe))
  }
  let li = 0
  let ri = 0
  while (li < left.order.length || ri < right.order.length) {
    const l = left.order[li]
    const r = right.order[ri]
    if (l !== undefined && emitted.has(l)) li++
    else if (l !== undefined && l === r) {
      emit(l)
      li++
      ri++
    } else if (l !== undefined && !right.byElement.has(l)) {
      emit(l)
      li++
    } else if (r !== undefined) {
      if (!emitted.has(r)) emit(r)
      ri++
    } else li++
  }
  return out
}

/**
 * `set` with every named struct field on its paths as a member too: the parents of an owned
 * field count as owned when deciding what a prune may remove.
 */
export function withNamedFieldsAsMembers(set: FieldSet, node: TypeNode): FieldSet {
  const out = set.union(new FieldSet())
  markNamed(out, node)
  return out
}

function markNamed(set: FieldSet, node: TypeNode): void {
  for (const [pe, child] of set.children) {
    if (node.k === 'list') markNamed(child, node.elem)
    else if (node.k === 'map' && pe.startsWith('f:')) {
      const name = pe.slice(2)
      if (isNamedField(node, name)) set.members.add(pe)
      markNamed(child, fieldType(node, name))
    }
  }
}

/** `value` without the fields and items of `set` (the prune of apply). */
export function removeItems(value: unknown, set: FieldSet, node: TypeNode): unknown {
  if (set.isEmpty()) return value
  const n = resolve(node, value)
  if (n.k === 'list' && n.type !== 'atomic' && Array.isArray(value)) {
    const out: unknown[] = []
    value.forEach((item, i) => {
      const pe = itemElement(n, i, item)
      if (set.members.has(pe)) return
      const sub = set.children.get(pe)
      out.push(sub ? removeItems(item, sub, n.elem) : item)
    })
    return out
  }
  if (n.k === 'map' && !n.atomic && isObj(value)) {
    const out: Obj = {}
    for (const [k, v] of Object.entries(value)) {
      const pe = fieldElement(k)
      if (set.members.has(pe)) continue
      const sub = set.children.get(pe)
      if (!sub) {
        out[k] = v
        continue
      }
      const kept = removeItems(v, sub, fieldType(n, k))
      // A Go map or slice emptied by the prune is not serialized (omitempty); a struct stays.
      const t = resolve(fieldType(n, k), kept)
      const goMapOrSlice = t.k === 'list' || (t.k === 'map' && t.fields === undefined)
      if (goMapOrSlice && isEmptyContainer(kept) && !isEmptyContainer(v)) continue
      out[k] = kept
    }
    return out
  }
  return value
}
