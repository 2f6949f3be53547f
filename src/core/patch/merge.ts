/**
 * JSON merge patch (RFC 7386) as gopkg.in/evanphx/json-patch.v4 MergePatch implements it
 * (research/patch.md §3). Never mutates its inputs.
 */
import { type JsonObject, deepClone, isObject } from './values.js'

export class MergePatchError extends Error {}

/** Returns the merged document: an object, or an array when the patch is an array (pruned). */
export function mergePatch(doc: JsonObject, patch: unknown): unknown {
  if (Array.isArray(patch)) {
    const copy = deepClone(patch)
    pruneArrayNulls(copy)
    return copy
  }
  if (!isObject(patch)) throw new MergePatchError('Invalid JSON Patch')
  const out = deepClone(doc)
  mergeDocs(out, deepClone(patch))
  return out
}

function mergeDocs(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k]
    if (v === null) {
      delete doc[k]
      continue
    }
    const cur = doc[k]
    if (!Object.prototype.hasOwnProperty.call(doc, k) || cur === null) {
      pruneNulls(v)
      doc[k] = v
    } else {
      doc[k] = merge(cur, v)
    }
  }
}

function merge(cur: unknown, patch: unknown): unknown {
  if (!isObject(cur)) {
    pruneNulls(patch)
    return patch
  }
  if (!isObject(patch)) return patch
  mergeDocs(cur, patch)
  return cur
}

function pruneNulls(v: unknown): void {
  if (isObject(v)) pruneDocNulls(v)
  else if (Array.isArray(v)) pruneArrayNulls(v)
}

function pruneDocNulls(doc: JsonObject): void {
  for (const k of Object.keys(doc)) {
    if (doc[k] === null) delete doc[k]
    else pruneNulls(doc[k])
  }
}

function pruneArrayNulls(ary: unknown[]): void {
  for (const v of ary) if (v !== null) pruneNulls(v)
}
