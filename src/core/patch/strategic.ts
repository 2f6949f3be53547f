/**
 * Strategic merge patch, applied as apimachinery's strategicpatch.StrategicMergePatch does for
 * kubectl (MergeParallelList and IgnoreUnmatchedNulls on), see research/patch.md §2.
 * Works on the value model of values.ts; never mutates its inputs.
 */
import { lookupField, lookupSliceField, type SchemaNode, SchemaError } from './schema.js'
import { type JsonObject, deepClone, goKind, goSprint, goTypeName, isObject, scalarEqual } from './values.js'

export class StrategicError extends Error {}

const DIRECTIVE = '$patch'
const RETAIN_KEYS = '$retainKeys'
const SET_ORDER = '$setElementOrder'
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList'

const fail = (msg: string): never => {
  throw new StrategicError(msg)
}

function lookup<T>(fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof SchemaError) throw new StrategicError(e.message)
    throw e
  }
}

const errNoMergeKey = (m: unknown, key: string) => new StrategicError(`map: ${goSprint(m)} does not contain declared merge key: ${key}`)
const errBadPatchType = (t: unknown, m: unknown) =>
  new StrategicError(`unknown patch type: ${typeof t === 'string' ? t : `%!s(${goKind(t)}=${goSprint(t)})`} in map: ${goSprint(m)}`)
const errBadArgKind = (actual: unknown) => new StrategicError(`expected a []interface {}, but received a ${goTypeName(actual)}`)

/** Applies `patch` (a decoded JSON object or null) to `original` with the schema of `root`. */
export function strategicMergePatch(original: JsonObject, patch: JsonObject | null, root: SchemaNode): JsonObject {
  return mergeMap(deepClone(original), patch ? deepClone(patch) : {}, root)
}

function extractRetainKeysStrategy(strategy: string): string {
  if (!strategy) return ''
  const parts = strategy.split(',')
  if (parts.length === 1) return parts[0] === 'retainKeys' ? '' : parts[0]
  if (parts.length === 2) {
    if (parts[0] === 'retainKeys') return parts[1]
    if (parts[1] === 'retainKeys') return parts[0]
  }
  return fail(`unexpected patch strategy: [${parts.join(' ')}]`)
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: SchemaNode): JsonObject {
  if (Object.prototype.hasOwnProperty.call(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE]
    if (directive === 'replace') {
      delete patch[DIRECTIVE]
      return patch
    }
    if (directive === 'delete') return {}
    throw errBadPatchType(directive, patch)
  }
  applyRetainKeys(original, patch)
  mergeSetElementOrder(original, patch, schema)

  for (const key of Object.keys(patch)) {
    const patchV = patch[key]
    let k = key
    let isDeleteList = false
    if (key.startsWith(DELETE_PRIMITIVE)) {
      k = extractKey(key, DELETE_PRIMITIVE, 'invalid patch format of primitive list')
      isDeleteList = true
    }
    if (patchV === null) {
      delete original[k]
      continue
    }
    if (!Object.prototype.hasOwnProperty.call(original, k)) {
      if (!isDeleteList) {
        const cleaned = cleanNewValue(patchV)
        if (cleaned !== undefined) original[k] = cleaned
      }
      continue
    }
    const orig = original[k]
    const kind = goKind(orig)
    if (kind !== goKind(patchV)) {
      if (!isDeleteList) {
        const cleaned = cleanNewValue(patchV)
        if (cleaned !== undefined) original[k] = cleaned
        else delete original[k]
      }
      continue
    }
    if (kind === 'map') {
      const f = lookup(() => lookupField(schema, k))
      const strategy = extractRetainKeysStrategy(f.strategy)
      original[k] = strategy === 'replace' ? patchV : mergeMap(orig as JsonObject, patchV as JsonObject, f.node)
    } else if (kind === 'slice') {
      const f = lookup(() => lookupSliceField(schema, k))
      const strategy = extractRetainKeysStrategy(f.strategy)
      original[k] = mergeSliceHandler(orig as unknown[], patchV as unknown[], f.node, strategy, f.mergeKey, isDeleteList)
    } else {
      original[k] = patchV
    }
  }
  return original
}

function extractKey(key: string, prefix: string, error: string): string {
  const slash = key.indexOf('/')
  if (slash < 0 || key.slice(0, slash) !== prefix) fail(error)
  return key.slice(slash + 1)
}

/**
 * Value stored for a key the original lacks (or holds with another type): null map members are
 * discarded at every depth, and maps carrying `$patch` are removed (undefined = drop it).
 */
function cleanNewValue(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out: unknown[] = []
    for (const e of v) {
      const c = cleanNewValue(e)
      if (c !== undefined) out.push(c)
    }
    return out
  }
  if (isObject(v)) {
    if (Object.prototype.hasOwnProperty.call(v, DIRECTIVE)) return undefined
    const out: JsonObject = {}
    for (const k of Object.keys(v)) {
      if (v[k] === null) continue
      const c = cleanNewValue(v[k])
      if (c !== undefined) out[k] = c
    }
    return out
  }
  return v
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!Object.prototype.hasOwnProperty.call(patch, RETAIN_KEYS)) return
  const list = patch[RETAIN_KEYS]
  delete patch[RETAIN_KEYS]
  if (!Array.isArray(list)) fail('invalid patch format of retainKeys')
  const keep = new Set((list as unknown[]).filter((x): x is string => typeof x === 'string'))
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(SET_ORDER)) continue
    if (!keep.has(k)) fail('invalid patch format of retainKeys')
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k]
}

function hasDirective(v: unknown): boolean {
  return isObject(v) && Object.prototype.hasOwnProperty.call(v, DIRECTIVE)
}

function mergeSetElementOrder(original: JsonObject, patch: JsonObject, schema: SchemaNode): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ORDER)) continue
    const order = patch[key]
    const listKey = extractKey(key, SET_ORDER, 'invalid patch format of setElementOrder list')
    delete patch[key]
    if (!Array.isArray(order)) throw errBadArgKind(order)
    const foundOriginal = Object.prototype.hasOwnProperty.call(original, listKey)
    const foundPatch = Object.prototype.hasOwnProperty.call(patch, listKey)
    let originalList: unknown[] = []
    let patchList: unknown[] = []
    if (foundOriginal) {
      if (!Array.isArray(original[listKey])) throw errBadArgKind(original[listKey])
      originalList = original[listKey] as unknown[]
    }
    if (foundPatch) {
      if (!Array.isArray(patch[listKey])) throw errBadArgKind(patch[listKey])
      patchList = patch[listKey] as unknown[]
    }
    const f = lookup(() => lookupSliceField(schema, listKey))
    const strategy = extractRetainKeysStrategy(f.strategy)
    validatePatchWithSetOrderList(patchList, order, f.mergeKey)
    let merged: unknown[]
    if (foundOriginal && !foundPatch) merged = originalList
    else if (!foundOriginal && foundPatch) merged = patchList.filter((e) => !hasDirective(e))
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, f.node, strategy, f.mergeKey, false)
    else continue
    const [patchItems, serverOnly] = f.mergeKey
      ? partitionMapsByPresentInList(merged, order, f.mergeKey)
      : partitionPrimitivesByPresentInList(merged, order)
    const elemKind = sliceElementKind([originalList, patchList])
    original[listKey] = normalizeElementOrder(patchItems, serverOnly, order, originalList, f.mergeKey, elemKind)
    delete patch[listKey]
  }
}

function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return
  const nonDelete = mergeKey ? patchList.filter((e) => !(isObject(e) && e[DIRECTIVE] === 'delete')) : patchList
  let pi = 0
  let oi = 0
  while (pi < nonDelete.length && oi < order.length) {
    if (hasDirective(nonDelete[pi])) {
      pi++
      continue
    }
    if (mergeKeyValueEqual(nonDelete[pi], order[oi], mergeKey)) pi++
    oi++
  }
  if (pi < nonDelete.length && oi >= order.length) {
    fail(`The order in patch list:\n${goSprint(patchList)}\n doesn't match $setElementOrder list:\n${goSprint(order)}\n`)
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return scalarEqual(left, right)
  if (!isObject(left)) fail(`invalid value for merge key: ${goSprint(left)}`)
  if (!isObject(right)) fail(`invalid value for merge key: ${goSprint(right)}`)
  const l = left as JsonObject
  const r = right as JsonObject
  if (!(mergeKey in l)) throw errNoMergeKey(l, mergeKey)
  if (!(mergeKey in r)) throw errNoMergeKey(r, mergeKey)
  return scalarEqual(l[mergeKey], r[mergeKey])
}

function mergeSliceHandler(
  original: unknown[],
  patch: unknown[],
  schema: SchemaNode,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  if (strategy === 'merge' || isDeleteList) return mergeSlice(original, patch, schema, mergeKey, isDeleteList)
  return patch
}

type ElemKind = ReturnType<typeof goKind>

/** sliceElementType: all elements of all lists must share one Go type; returns it. */
function sliceElementKind(slices: unknown[][]): ElemKind {
  let prev: ElemKind | undefined
  for (const s of slices) {
    for (const v of s) {
      const cur = goKind(v)
      if (prev === undefined) {
        prev = cur
        if (prev === 'slice') fail('lists of lists are not supported')
      } else if (prev !== cur) {
        fail(`list element types are not identical: ${goSprint(slices)}`)
      }
    }
  }
  if (prev === undefined) fail('no elements in any of the given slices')
  return prev as ElemKind
}

function mergeSlice(original: unknown[], patch: unknown[], schema: SchemaNode, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original
  const kind = sliceElementKind([original, patch])
  let merged: unknown[]
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((o) => !patch.some((p) => scalarEqual(o, p)))
    merged = dedupScalars([...original, ...patch])
  } else {
    if (!mergeKey) fail(`cannot merge lists without merge key for ${schema.kind === 'struct' ? schema.def : ''}`)
    ;[original, patch] = mergeSliceWithSpecialElements(original, patch, mergeKey)
    merged = mergeSliceWithoutSpecialElements(original, patch, mergeKey, schema)
  }
  const [patchItems, serverOnly] = mergeKey
    ? partitionMapsByPresentInList(merged, patch, mergeKey)
    : partitionPrimitivesByPresentInList(merged, patch)
  return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind)
}

function dedupScalars(list: unknown[]): unknown[] {
  const out: unknown[] = []
  for (const v of list) if (!out.some((o) => scalarEqual(o, v))) out.push(v)
  return out
}

function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = []
  let replace = false
  for (const v of patch) {
    const m = v as JsonObject
    if (!Object.prototype.hasOwnProperty.call(m, DIRECTIVE)) {
      plain.push(v)
      continue
    }
    const t = m[DIRECTIVE]
    if (t === 'delete') {
      if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey)
      const value = m[mergeKey]
      original = original.filter((o) => !(isObject(o) && Object.prototype.hasOwnProperty.call(o, mergeKey) && scalarEqual(o[mergeKey], value)))
    } else if (t === 'replace') {
      replace = true
    } else if (t === 'merge') {
      fail('merging lists cannot yet be specified in the patch')
    } else {
      throw errBadPatchType(t, m)
    }
  }
  if (replace) return [plain, []]
  return [original, plain]
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, schema: SchemaNode): unknown[] {
  const out = [...original]
  for (const v of patch) {
    const m = v as JsonObject
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey)
    const value = m[mergeKey]
    const idx = out.findIndex((o) => {
      if (!isObject(o)) fail(`value for key ${out.indexOf(o)} is not a map`)
      return Object.prototype.hasOwnProperty.call(o, mergeKey) && scalarEqual((o as JsonObject)[mergeKey], value)
    })
    if (idx >= 0) out[idx] = mergeMap(out[idx] as JsonObject, m, schema)
    else out.push(v)
  }
  return out
}

function partitionMapsByPresentInList(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inList: unknown[] = []
  const notIn: unknown[] = []
  for (const v of list) {
    if (!isObject(v)) fail(`value for key ${goSprint(v)} is not a map`)
    const m = v as JsonObject
    if (!Object.prototype.hasOwnProperty.call(m, mergeKey)) throw errNoMergeKey(m, mergeKey)
    let found = false
    for (const w of by) {
      if (!isObject(w)) continue
      if (!Object.prototype.hasOwnProperty.call(w, mergeKey)) throw errNoMergeKey(w, mergeKey)
      if (scalarEqual(w[mergeKey], m[mergeKey])) {
        found = true
        break
      }
    }
    ;(found ? inList : notIn).push(v)
  }
  return [inList, notIn]
}

function partitionPrimitivesByPresentInList(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inList: unknown[] = []
  const notIn: unknown[] = []
  for (const v of list) (by.some((w) => scalarEqual(w, v)) ? inList : notIn).push(v)
  return [inList, notIn]
}

function indexIn(list: unknown[], v: unknown, mergeKey: string, kind: ElemKind): number {
  if (kind === 'map' && mergeKey) {
    const key = (v as JsonObject)[mergeKey]
    return list.findIndex((e) => isObject(e) && Object.prototype.hasOwnProperty.call(e, mergeKey) && scalarEqual(e[mergeKey], key))
  }
  return list.findIndex((e) => scalarEqual(e, v))
}

function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  if (kind === 'map') {
    for (const l of [toSort, order]) {
      for (const e of l) if (isObject(e) && !Object.prototype.hasOwnProperty.call(e, mergeKey)) throw errNoMergeKey(e, mergeKey)
    }
  }
  const idx = toSort.map((v, i) => ({ v, i, o: indexIn(order, v, mergeKey, kind) }))
  idx.sort((a, b) => a.o - b.o || a.i - b.i)
  return idx.map((x) => x.v)
}

function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: ElemKind,
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind)
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind)
  const out: unknown[] = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++])
    else if (j >= right.length) out.push(left[i++])
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind)
      const ri = indexIn(serverOrder, right[j], mergeKey, kind)
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++])
      else out.push(right[j++])
    }
  }
  return out
}

