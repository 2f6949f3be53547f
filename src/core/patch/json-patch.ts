/**
 * JSON patch (RFC 6902) with the behaviour and error texts of gopkg.in/evanphx/json-patch.v4
 * v4.12.0 as kubectl uses it (research/patch.md §4): the first path segment is discarded, a
 * replace of a missing object member adds it, copy from a missing member writes null, a test
 * with `value: null` passes on a missing member, negative array indices are accepted, a replace
 * of the whole document with a scalar is a silent no-op.
 *
 * fast-json-patch implements strict RFC 6902 and reports different errors for almost every one of
 * these cases, so the operations are implemented here directly on the value model of values.ts
 * (int64 / float64 / bigint numbers must survive untouched, which fast-json-patch's JSON clone
 * would not guarantee either).
 */
import { type JsonObject, deepClone, goKind, goMarshal, goQuote, isObject } from './values.js'

export class JsonPatchError extends Error {}

type Container = JsonObject | unknown[]
type Op = JsonObject
const MISSING = 'missing value'
const INVALID_INDEX = 'invalid index referenced'

class OpError extends Error {}
const err = (m: string): never => {
  throw new OpError(m)
}

function goTypeForUnmarshal(v: unknown): string {
  const k = goKind(v)
  if (k === 'map') return 'object'
  if (k === 'slice') return 'array'
  if (k === 'int64' || k === 'float64') return 'number'
  return k
}

/** jsonpatch.DecodePatch of an already-decoded JSON value. */
function decodeJsonPatch(patch: unknown): Op[] {
  if (patch === null || patch === undefined) return []
  if (!Array.isArray(patch)) throw new JsonPatchError(`json: cannot unmarshal ${goTypeForUnmarshal(patch)} into Go value of type jsonpatch.Patch`)
  return patch.map((op) => {
    if (op === null) return {}
    if (!isObject(op)) throw new JsonPatchError(`json: cannot unmarshal ${goTypeForUnmarshal(op)} into Go value of type jsonpatch.Operation`)
    return op
  })
}

/** Applies the operations to a copy of `doc`; returns the new document (object or array). */
export function applyJsonPatch(doc: JsonObject, patch: unknown): unknown {
  try {
    return applyOperations(doc, decodeJsonPatch(patch))
  } catch (e) {
    if (e instanceof OpError) {
      const m = /doc is missing key: (.*)$/s.exec(e.message)
      throw new JsonPatchError(m ? `Object to be patched is missing field (${m[1]})` : e.message)
    }
    throw e
  }
}

/** A `test` operation that failed (the library's ErrTestFailed, which callers may tell apart). */
export class JsonPatchTestFailed extends JsonPatchError {}

/**
 * The library's Patch.Apply as a caller of the library sees it (no kubectl wording): errors
 * carry its own messages, a failed test is JsonPatchTestFailed.
 */
export function applyJsonPatchOperations(doc: JsonObject, patch: unknown): unknown {
  try {
    return applyOperations(doc, decodeJsonPatch(patch))
  } catch (e) {
    if (e instanceof OpError) throw e.message.endsWith(': test failed') ? new JsonPatchTestFailed(e.message) : new JsonPatchError(e.message)
    throw e
  }
}

function applyOperations(doc: JsonObject, ops: Op[]): unknown {
  const state = { doc: deepClone(doc) as Container }
  for (const op of ops) {
    const kind = opKind(op)
    switch (kind) {
      case 'add':
        add(state, op)
        break
      case 'remove':
        remove(state, op)
        break
      case 'replace':
        replace(state, op)
        break
      case 'move':
        move(state, op)
        break
      case 'test':
        test(state, op)
        break
      case 'copy':
        copy(state, op)
        break
      default:
        err(`Unexpected kind: ${kind}`)
    }
  }
  return state.doc
}

function opKind(op: Op): string {
  const v = op.op
  return typeof v === 'string' ? v : 'unknown'
}

/** op.Path() / op.From(): the string, or an error text. */
function field(op: Op, name: 'path' | 'from'): { value: string } | { error: string } {
  if (!Object.prototype.hasOwnProperty.call(op, name) || op[name] === null) {
    return { error: `operation missing ${name} field: ${MISSING}` }
  }
  const v = op[name]
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${goTypeForUnmarshal(v)} into Go value of type string` }
  return { value: v }
}

function pathOf(op: Op, opName: string, wrapMissing: boolean): string {
  const p = field(op, 'path')
  if ('error' in p) err(wrapMissing ? `${opName} operation failed to decode path: ${MISSING}` : `${opName} operation failed to decode path: ${p.error}`)
  return (p as { value: string }).value
}

function fromOf(op: Op, opName: string): string {
  const p = field(op, 'from')
  if ('error' in p) err(`${opName} operation failed to decode from: ${p.error}`)
  return (p as { value: string }).value
}

/** op.value(): undefined when the member is absent; null for JSON null. */
function valueOf(op: Op): unknown {
  return Object.prototype.hasOwnProperty.call(op, 'value') ? op.value : undefined
}

const decodeKey = (s: string) => s.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'))

function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new OpError(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`)
  const n = Number(s)
  if (!Number.isSafeInteger(n) || Math.abs(n) >= 2 ** 63) throw new OpError(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`)
  return n
}

function isContainer(v: unknown): v is Container {
  return Array.isArray(v) || isObject(v)
}

function get(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return Object.prototype.hasOwnProperty.call(con, key) ? con[key] : undefined
  let idx = atoi(key)
  if (idx < 0) {
    if (idx < -con.length) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
    idx += con.length
  }
  if (idx >= con.length) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
  return con[idx]
}

function findObject(state: { doc: Container }, path: string): [Container, string] | undefined {
  const split = path.split('/')
  if (split.length < 2) return undefined
  let doc: Container = state.doc
  for (const part of split.slice(1, -1)) {
    let next: unknown
    try {
      next = get(doc, decodeKey(part))
    } catch (e) {
      if (e instanceof OpError) return undefined
      throw e
    }
    if (!isContainer(next)) return undefined
    doc = next
  }
  return [doc, decodeKey(split[split.length - 1])]
}

function conAdd(con: Container, key: string, val: unknown): void {
  if (!Array.isArray(con)) {
    con[key] = val
    return
  }
  if (key === '-') {
    con.push(val)
    return
  }
  let idx: number
  try {
    idx = atoi(key)
  } catch (e) {
    throw new OpError(`value was not a proper array index: '${key}': ${(e as Error).message}`)
  }
  const size = con.length + 1
  if (idx >= size) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
  if (idx < 0) {
    if (idx < -size) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
    idx += size
  }
  con.splice(idx, 0, val)
}

function conRemove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!Object.prototype.hasOwnProperty.call(con, key)) err(`Unable to remove nonexistent key: ${key}: ${MISSING}`)
    delete con[key]
    return
  }
  let idx = atoi(key)
  if (idx >= con.length) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
  if (idx < 0) {
    if (idx < -con.length) err(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`)
    idx += con.length
  }
  con.splice(idx, 1)
}

function conSet(con: Container, key: string, val: unknown): void {
  if (!Array.isArray(con)) {
    con[key] = val
    return
  }
  let idx = atoi(key)
  if (idx < 0) idx += con.length
  con[idx] = val
}

function wrap(prefix: string, fn: () => void): void {
  try {
    fn()
  } catch (e) {
    if (e instanceof OpError) throw new OpError(`${prefix}: ${e.message}`)
    throw e
  }
}

const nullIfMissing = (v: unknown) => (v === undefined ? null : v)

function add(state: { doc: Container }, op: Op): void {
  const path = pathOf(op, 'add', true)
  const found = findObject(state, path)
  if (!found) return err(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`)
  wrap(`error in add for path: '${path}'`, () => conAdd(found[0], found[1], deepClone(nullIfMissing(valueOf(op)))))
}

function remove(state: { doc: Container }, op: Op): void {
  const path = pathOf(op, 'remove', true)
  const found = findObject(state, path)
  if (!found) return err(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`)
  wrap(`error in remove for path: '${path}'`, () => conRemove(found[0], found[1]))
}

function replace(state: { doc: Container }, op: Op): void {
  const path = pathOf(op, 'replace', false)
  if (path === '') {
    const v = valueOf(op)
    if (isContainer(v)) state.doc = deepClone(v)
    return // a scalar (or null) value: the library wraps a nil error → silently ignored
  }
  const found = findObject(state, path)
  if (!found) return err(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`)
  try {
    get(found[0], found[1])
  } catch (e) {
    if (e instanceof OpError) err(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`)
    throw e
  }
  wrap(`error in remove for path: '${path}'`, () => conSet(found[0], found[1], deepClone(nullIfMissing(valueOf(op)))))
}

function move(state: { doc: Container }, op: Op): void {
  const from = fromOf(op, 'move')
  const src = findObject(state, from)
  if (!src) return err(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`)
  let val: unknown
  wrap(`error in move for path: '${src[1]}'`, () => {
    val = get(src[0], src[1])
  })
  wrap(`error in move for path: '${src[1]}'`, () => conRemove(src[0], src[1]))
  const path = pathOf(op, 'move', false)
  const dst = findObject(state, path)
  if (!dst) return err(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`)
  wrap(`error in move for path: '${path}'`, () => conAdd(dst[0], dst[1], nullIfMissing(val)))
}

function copy(state: { doc: Container }, op: Op): void {
  const from = fromOf(op, 'copy')
  const src = findObject(state, from)
  if (!src) return err(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`)
  let val: unknown
  wrap(`error in copy for path: '${from}'`, () => {
    val = get(src[0], src[1])
  })
  const path = pathOf(op, 'copy', true)
  const dst = findObject(state, path)
  if (!dst) return err(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`)
  wrap(`error in add for path: '${path}'`, () => conAdd(dst[0], dst[1], deepClone(nullIfMissing(val))))
}

/** lazyNode.equal: structural for objects/arrays, compact-literal comparison for scalars. */
function nodeEqual(a: unknown, b: unknown): boolean {
  if (isObject(a)) {
    if (!isObject(b)) return false
    const ka = Object.keys(a)
    if (ka.length !== Object.keys(b).length) return false
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return false
      const x = a[k]
      const y = b[k]
      if ((x === null) !== (y === null)) return false
      if (x === null) continue
      if (!nodeEqual(x, y)) return false
    }
    return true
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => nodeEqual(x, b[i]))
  }
  if (isContainer(b)) return false
  return goMarshal(a) === goMarshal(b)
}

function test(state: { doc: Container }, op: Op): void {
  const path = pathOf(op, 'test', false)
  const expected = valueOf(op)
  const failed = () => err(`testing value ${path} failed: test failed`)
  if (path === '') {
    if (expected === undefined || !nodeEqual(state.doc, expected)) failed()
    return
  }
  const found = findObject(state, path)
  if (!found) return err(`test operation does not apply: is missing path: ${path}: ${MISSING}`)
  let val: unknown
  wrap(`error in test for path: '${path}'`, () => {
    val = get(found[0], found[1])
  })
  if (val === undefined || val === null) {
    // kubectl panics when the value member is absent here; report a failed test instead
    if (expected === null) return
    return failed()
  }
  if (expected === undefined || expected === null || !nodeEqual(val, expected)) failed()
}
