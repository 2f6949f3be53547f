/**
 * The patch engine of `client patch` and of the API server's PATCH verb: strategic merge patch,
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902) with kubectl v1.32's semantics and
 * error texts (see the project's patch research notes, research/patch.md of the shared tree).
 *
 * Numbers: values follow the model of ./values.ts — int64 as JS integers (bigint beyond 2^53),
 * float64 as JS numbers, integral float64 (`1.0`, `8080.0`) as {@link GoFloat}. Parse input
 * objects with {@link parseGoJson} / {@link parseGoYaml} to keep these distinctions (they matter for
 * SMP merge keys and for the "no change" check, see {@link deepEqual}); `JSON.stringify` prints
 * GoFloat like Go but throws on bigint — use {@link formatGoNumber} in printers.
 */
import { JsonPatchError, applyJsonPatch } from './json-patch.js'
import { MergePatchError, mergePatch } from './merge.js'
import { GoJsonSyntaxError, YamlSyntaxError, parseGoJson, parseGoYaml } from './parse.js'
import { isKnownKind, rootNode } from './schema.js'
import { StrategicError, strategicMergePatch } from './strategic.js'
import { type JsonObject, goMarshal, goQuote, isObject } from './values.js'

export { GoFloat, deepEqual, deepClone, formatGoNumber, goMarshal, goQuote, goSprint, isObject } from './values.js'
export type { JsonObject } from './values.js'
export { parseGoJson, parseGoYaml } from './parse.js'
export { nodeAtPath, lookupField, lookupSliceField, type SchemaNode, type FieldMeta } from './schema.js'

export type PatchType = 'strategic' | 'merge' | 'json'

/** An error of the patch engine; `message` is kubectl's text without the `error: ` prefix. */
export class PatchError extends Error {
  override name = 'PatchError'
}

/**
 * A patch whose text starts with `{` but is not valid JSON. kubectl passes such text on as is and
 * the engine fails per object (after the "not supported locally" check for strategic patches),
 * so {@link parsePatch} returns this marker and {@link applyPatch} throws the type's error.
 */
export class UnparsablePatch {
  constructor(
    readonly text: string,
    /** Go encoding/json's syntax error text (what `--type json` reports). */
    readonly syntaxError: string,
  ) {}
}

interface ParsePatchOptions {
  /**
   * The patch came from `--patch-file`: a YAML error then quotes the (empty) `-p` value, `""`,
   * exactly like kubectl.
   */
  fromFile?: boolean
}

/**
 * Parses the patch text (JSON or YAML) as kubectl does for the given type: text whose first
 * non-space character is `{` is JSON, anything else is YAML 1.1 (first document only).
 * Throws PatchError only for YAML syntax errors (`unable to parse "<-p value>": yaml: ...`);
 * shape errors (array for strategic, scalar for merge, ...) are per object and come from
 * {@link applyPatch}. Malformed `{...` text yields an {@link UnparsablePatch}.
 */
export function parsePatch(text: string, type: PatchType, options: ParsePatchOptions = {}): unknown {
  void type
  if (/^\s*\{/u.test(text)) {
    try {
      return parseGoJson(text)
    } catch (e) {
      if (e instanceof GoJsonSyntaxError) return new UnparsablePatch(text, e.message)
      throw e
    }
  }
  try {
    return parseGoYaml(text)
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw new PatchError(`unable to parse ${goQuote(options.fromFile ? '' : text)}: ${e.message}`)
    throw e
  }
}

/** Whether apiVersion/kind is a built-in type known to the schema (SMP supported locally). */
export function isBuiltIn(apiVersion: string, kind: string): boolean {
  return isKnownKind(apiVersion, kind)
}

/** `schema.GroupVersionKind.String()`: `group/version, Kind=Kind`. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/')
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)]
  return `${group}/${version}, Kind=${kind}`
}

/**
 * Applies a parsed patch to a JSON object (not mutated; returns a new object). `kind` /
 * `apiVersion` of `original` select the SMP schema; unknown kinds → kubectl's error for strategic.
 * The result is checked like kubectl decodes it: a non-object result fails with
 * `json: cannot unmarshal array into Go value of type unstructured.detector`, a result without
 * `kind` with `Object 'Kind' is missing in '<json>'`.
 */
/** `server`: the server's own patch (its typed kinds include CRDs and APIServices); else kubectl's local one. */
export function applyPatch(original: Record<string, unknown>, patch: unknown, type: PatchType, server = false): Record<string, unknown> {
  let result: unknown
  try {
    result = apply(original, patch, type, server)
  } catch (e) {
    if (e instanceof StrategicError || e instanceof MergePatchError || e instanceof JsonPatchError) throw new PatchError(e.message)
    throw e
  }
  if (!isObject(result)) {
    const what = Array.isArray(result) ? 'array' : result === null ? 'null' : typeof result
    throw new PatchError(`json: cannot unmarshal ${what} into Go value of type unstructured.detector`)
  }
  const kind = result.kind
  if (typeof kind !== 'string' || kind === '') throw new PatchError(`Object 'Kind' is missing in '${goMarshal(result)}'`)
  return result
}

function apply(original: JsonObject, patch: unknown, type: PatchType, server: boolean): unknown {
  switch (type) {
    case 'strategic': {
      const apiVersion = typeof original.apiVersion === 'string' ? original.apiVersion : ''
      const kind = typeof original.kind === 'string' ? original.kind : ''
      const root = rootNode(apiVersion, kind, server)
      if (!root) {
        throw new PatchError(`strategic merge patch is not supported for ${gvkString(apiVersion, kind)} locally, try --type merge`)
      }
      if (patch instanceof UnparsablePatch) throw new PatchError('invalid JSON document')
      if (patch !== null && patch !== undefined && !isObject(patch)) throw new PatchError('invalid JSON document')
      return strategicMergePatch(original, (patch ?? null) as JsonObject | null, root)
    }
    case 'merge':
      if (patch instanceof UnparsablePatch) throw new PatchError('Invalid JSON Patch')
      return mergePatch(original, patch)
    case 'json':
      if (patch instanceof UnparsablePatch) throw new PatchError(patch.syntaxError)
      return applyJsonPatch(original, patch)
    default:
      throw new PatchError(`--type must be one of [json merge strategic], not "${String(type)}"`)
  }
}
