/**
 * Strategic-merge-patch metadata of the built-in kinds, read lazily from the generated artefact
 * `generated/patch-meta.json` (see scripts/gen-patch-meta.mjs for its format). Mirrors
 * apimachinery's PatchMetaFromStruct: lookups by JSON field name (case-insensitive fallback) and
 * the same error texts.
 */
// A static JSON import (not fs): tsc copies the artefact into dist/ and esbuild inlines it into the
// command bundle, so the installed CLI never needs src/ or the shared reference tree. The module itself is only
// loaded by the commands that patch; the lookup tables below are built on first use.
import patchMeta from './generated/patch-meta.json' with { type: 'json' }

type FieldSpec = 0 | string | FieldSpec[] | { t: FieldSpec; s: string }

interface Artefact {
  gvk: Record<string, string>
  /** Kinds built into the server but not into kubectl's local scheme (CRDs, APIServices). */
  serverGvk: Record<string, string>
  defs: Record<string, Record<string, FieldSpec>>
}

let artefact: Artefact | undefined

function meta(): Artefact {
  artefact ??= patchMeta as unknown as Artefact
  return artefact
}

/** A node of the Go type tree: a struct (named definition), a map, a slice or a scalar. */
export type SchemaNode =
  | { kind: 'struct'; def: string }
  | { kind: 'map' }
  | { kind: 'scalar' }
  | { kind: 'slice'; elem: SchemaNode }

export interface FieldMeta {
  node: SchemaNode
  /** raw comma-separated patch strategy ('' when none), e.g. `merge`, `merge,retainKeys`, `replace`. */
  strategy: string
  mergeKey: string
}

export class SchemaError extends Error {}

function toNode(spec: FieldSpec): { node: SchemaNode; strategy: string; mergeKey: string } {
  if (spec === 0) return { node: { kind: 'scalar' }, strategy: '', mergeKey: '' }
  if (typeof spec === 'string') {
    if (spec === 'm') return { node: { kind: 'map' }, strategy: '', mergeKey: '' }
    return { node: { kind: 'struct', def: spec }, strategy: '', mergeKey: '' }
  }
  if (Array.isArray(spec)) {
    const [item, strategy, mergeKey] = spec as [FieldSpec, string?, string?]
    return { node: { kind: 'slice', elem: toNode(item).node }, strategy: strategy ?? '', mergeKey: mergeKey ?? '' }
  }
  return { node: toNode(spec.t).node, strategy: spec.s, mergeKey: '' }
}

/** Go type name of a definition ("core.v1.ConfigMap" → "ConfigMap"). */
function goTypeNameOf(def: string): string {
  return def.slice(def.lastIndexOf('.') + 1)
}

function goKindOf(node: SchemaNode): string {
  switch (node.kind) {
    case 'struct':
      return 'struct'
    case 'map':
      return 'map'
    case 'slice':
      return 'slice'
    default:
      return 'string'
  }
}

/** The definition name for an apiVersion/kind kubectl knows locally, or undefined. */
export function definitionFor(apiVersion: string, kind: string): string | undefined {
  return meta().gvk[`${apiVersion}/${kind}`]
}

export function isKnownKind(apiVersion: string, kind: string): boolean {
  return definitionFor(apiVersion, kind) !== undefined
}

/**
 * The root of a kind's type tree. `server`: as the server sees it, which also has the typed
 * structs of its extension and aggregation layers (kubectl patches those only through a server).
 */
export function rootNode(apiVersion: string, kind: string, server = false): SchemaNode | undefined {
  const def = definitionFor(apiVersion, kind) ?? (server ? meta().serverGvk[`${apiVersion}/${kind}`] : undefined)
  return def ? { kind: 'struct', def } : undefined
}

function fieldsOf(def: string): Record<string, FieldSpec> {
  return meta().defs[def] ?? {}
}

/** PatchMetaFromStruct.LookupPatchMetadataForStruct. */
export function lookupField(node: SchemaNode, key: string): FieldMeta {
  if (node.kind !== 'struct') {
    throw new SchemaError(`merging an object in json but data type is not struct, instead is: ${goKindOf(node)}`)
  }
  const fields = fieldsOf(node.def)
  let spec: FieldSpec | undefined = Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined
  if (spec === undefined) {
    const lower = key.toLowerCase()
    const name = Object.keys(fields).find((f) => f.toLowerCase() === lower)
    if (name !== undefined) spec = fields[name]
  }
  if (spec === undefined) {
    throw new SchemaError(`unable to find api field in struct ${goTypeNameOf(node.def)} for the json field ${JSON.stringify(key)}`)
  }
  return toNode(spec)
}

/** PatchMetaFromStruct.LookupPatchMetadataForSlice: the returned node is the ELEMENT type. */
export function lookupSliceField(node: SchemaNode, key: string): FieldMeta {
  const f = lookupField(node, key)
  if (f.node.kind !== 'slice') throw new SchemaError(`expected slice or array type, but got: ${goKindOf(node)}`)
  if (f.node.elem.kind === 'slice') throw new SchemaError('unexpected slice of slice')
  return { node: f.node.elem, strategy: f.strategy, mergeKey: f.mergeKey }
}

/** Schema node at a path of JSON field names (list indices are skipped), or undefined if unknown. */
export function nodeAtPath(apiVersion: string, kind: string, path: readonly (string | number)[]): SchemaNode | undefined {
  let node = rootNode(apiVersion, kind)
  for (const seg of path) {
    if (!node) return undefined
    if (typeof seg === 'number') {
      if (node.kind !== 'slice') return undefined
      node = node.elem
      continue
    }
    try {
      node = lookupField(node, seg).node
    } catch {
      return undefined
    }
  }
  return node
}
