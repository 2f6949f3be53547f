/**
 * The type information server-side apply walks objects with (structured-merge-diff's schema):
 * structs with named fields, maps, lists that are atomic, sets or maps keyed by some of their
 * items' fields, and scalars. Built-in kinds read it from the generated artefact
 * (scripts/gen-apply-schema.mjs); custom resources from their CRD's openAPIV3Schema; anything
 * unknown is deduced from the value as the reference does (objects are granular maps, lists
 * are atomic).
 */
import applySchema from './generated/apply-schema.json' with { type: 'json' }

export type TypeNode =
  | { k: 'scalar' }
  | { k: 'deduced' }
  /**
   * A struct or a map. `fields` are the named fields (a struct), `elem` the type of any other
   * key (a map). Built-in structs also know which fields Go always serializes, even empty:
   * `values` (structs held by value, `{}`) and `required` (lists and maps without omitempty, null).
   */
  | {
      k: 'map'
      fields?: (name: string) => TypeNode | undefined
      elem?: TypeNode
      atomic: boolean
      values?: ReadonlySet<string>
      required?: ReadonlySet<string>
    }
  | { k: 'list'; elem: TypeNode; type: 'atomic' | 'set' | 'map'; keys: string[]; keyDefaults: Record<string, unknown> }

type TypeRef = 0 | string | ['l', TypeRef, 'a' | 's' | 'm', string[]?, Record<string, unknown>?] | ['m', TypeRef, 'a'?] | ['a', string]

interface Artefact {
  gvk: Record<string, string>
  defs: Record<string, { f: Record<string, TypeRef>; a?: 1; r?: string[]; v?: string[] }>
}

const artefact = applySchema as unknown as Artefact

const SCALAR: TypeNode = { k: 'scalar' }
export const DEDUCED: TypeNode = { k: 'deduced' }

const resolved = new Map<string, TypeNode>()

function fromRef(ref: TypeRef): TypeNode {
  if (ref === 0) return SCALAR
  if (typeof ref === 'string') return ref === 'd' ? DEDUCED : defNode(ref)
  if (ref[0] === 'l') {
    const [, item, t, keys, keyDefaults] = ref
    return { k: 'list', elem: fromRef(item), type: t === 'm' ? 'map' : t === 's' ? 'set' : 'atomic', keys: keys ?? [], keyDefaults: keyDefaults ?? {} }
  }
  if (ref[0] === 'a') {
    const struct = fromRef(ref[1])
    return struct.k === 'map' ? { ...struct, atomic: true } : struct
  }
  const [, elem, atomic] = ref
  return { k: 'map', elem: fromRef(elem), atomic: atomic === 'a' }
}

function defNode(name: string): TypeNode {
  let node = resolved.get(name)
  if (node) return node
  const def = artefact.defs[name]
  if (!def) return DEDUCED
  const cache = new Map<string, TypeNode | undefined>()
  node = {
    k: 'map',
    atomic: def.a === 1,
    ...(def.r ? { required: new Set(def.r) } : {}),
    ...(def.v ? { values: new Set(def.v) } : {}),
    fields: (field) => {
      if (!cache.has(field)) cache.set(field, field in def.f ? fromRef(def.f[field]!) : undefined)
      return cache.get(field)
    },
  }
  resolved.set(name, node)
  return node
}

/** The type of a built-in kind (`apps/v1`, `Deployment`), or undefined when it is not one. */
export function builtInType(apiVersion: string, kind: string): TypeNode | undefined {
  const def = artefact.gvk[`${apiVersion}/${kind}`]
  return def ? defNode(def) : undefined
}

const OBJECT_META = defNode('meta.v1.ObjectMeta')

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The type of a custom resource from its version's openAPIV3Schema (structural schema with the
 * x-kubernetes-* extensions). apiVersion, kind and metadata are the reference's fixed ones.
 */
export function crdType(schema: unknown): TypeNode {
  const node = fromOpenApiV3(isObj(schema) ? schema : {})
  return withObjectFields(node.k === 'map' ? node : { k: 'map', elem: DEDUCED, atomic: false })
}

/** An object's own apiVersion, kind and metadata: a custom resource, or an embedded resource in it. */
function withObjectFields(node: TypeNode & { k: 'map' }): TypeNode {
  const base = node.fields
  return {
    ...node,
    fields: (name) => (name === 'metadata' ? OBJECT_META : name === 'apiVersion' || name === 'kind' ? SCALAR : base?.(name)),
  }
}

function fromOpenApiV3(s: Obj): TypeNode {
  if (s['x-kubernetes-int-or-string'] === true) return SCALAR
  if (s['x-kubernetes-preserve-unknown-fields'] === true && !isObj(s.properties) && !isObj(s.additionalProperties)) return DEDUCED
  const type = s.type
  if (type === 'array') {
    const elem = isObj(s.items) ? fromOpenApiV3(s.items) : DEDUCED
    const listType = s['x-kubernetes-list-type']
    const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : []
    const props = isObj(s.items) && isObj(s.items.properties) ? s.items.properties : {}
    const keyDefaults: Obj = {}
    for (const k of keys) if (isObj(props[k]) && props[k].default !== undefined) keyDefaults[k] = props[k].default
    return { k: 'list', elem, type: listType === 'map' ? 'map' : listType === 'set' ? 'set' : 'atomic', keys: listType === 'map' ? keys : [], keyDefaults }
  }
  if (type === 'object' || isObj(s.properties) || isObj(s.additionalProperties)) {
    const props = isObj(s.properties) ? s.properties : undefined
    const fieldCache = new Map<string, TypeNode | undefined>()
    const elem = isObj(s.additionalProperties) ? fromOpenApiV3(s.additionalProperties) : props ? (s['x-kubernetes-preserve-unknown-fields'] === true ? DEDUCED : undefined) : DEDUCED
    const node: TypeNode = {
      k: 'map',
      atomic: s['x-kubernetes-map-type'] === 'atomic',
      ...(props
        ? {
            fields: (name: string) => {
              if (!fieldCache.has(name)) fieldCache.set(name, isObj(props[name]) ? fromOpenApiV3(props[name]) : undefined)
              return fieldCache.get(name)
            },
          }
        : {}),
      ...(elem ? { elem } : {}),
    }
    return s['x-kubernetes-embedded-resource'] === true ? withObjectFields(node) : node
  }
  return SCALAR
}

/**
 * The type of a map entry or struct field. Fields a struct does not declare are deduced: the
 * walks stay lenient with stored objects; an applied configuration is checked first.
 */
export function fieldType(node: TypeNode & { k: 'map' }, name: string): TypeNode {
  return node.fields?.(name) ?? node.elem ?? DEDUCED
}

/** Whether `name` is a named field of the struct (not an entry of its map part). */
export function isNamedField(node: TypeNode & { k: 'map' }, name: string): boolean {
  return node.fields?.(name) !== undefined
}

/** What a value resolves to: deduced types take the value's shape. */
export function resolve(node: TypeNode, value: unknown): TypeNode {
  if (node.k !== 'deduced') return node
  if (isObj(value)) return { k: 'map', elem: DEDUCED, atomic: false }
  if (Array.isArray(value)) return { k: 'list', elem: DEDUCED, type: 'atomic', keys: [], keyDefaults: {} }
  return SCALAR
}
