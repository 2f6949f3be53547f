/**
 * The reference's SchemaResolver as the policies' type checking uses it: the schema of a kind,
 * from the served OpenAPI definitions for built-in kinds (their `$ref`s inlined) or the CRD's
 * `openAPIV3Schema` for custom resources; undefined when the kind has none. What the engine
 * cannot type as cel-go does (date-time, duration and byte strings, int-or-string) is left
 * dynamic, so that no expression is warned about for a type the checker cannot tell.
 */
import { type Json, loadOpenApiData } from '../../../api/openapi-data.js'
import type { AdmissionStores } from '../../plugins.js'
import { type GroupVersionKind, servedKinds } from '../kinds.js'

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** How deep `$ref`s are followed: recursive definitions (JSONSchemaProps) end dynamic. */
const MAX_DEPTH = 12

const DYNAMIC: Json = { 'x-kubernetes-int-or-string': true }

function inline(schema: Json, definitions: Record<string, Json>, seen: readonly string[]): Json {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/definitions\//, '')
    const target = definitions[name]
    if (!target || seen.includes(name) || seen.length >= MAX_DEPTH) return DYNAMIC
    return inline(target, definitions, [...seen, name])
  }
  if (schema.format === 'int-or-string' || schema['x-kubernetes-int-or-string'] === true) return DYNAMIC
  if (schema.type === 'string' && (schema.format === 'date-time' || schema.format === 'duration' || schema.format === 'byte')) return DYNAMIC
  const out: Json = { ...schema }
  if (isObj(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).filter(([, p]) => isObj(p)).map(([k, p]) => [k, inline(p as Json, definitions, seen)]))
    out.type ??= 'object'
  }
  if (isObj(schema.items)) out.items = inline(schema.items, definitions, seen)
  if (isObj(schema.additionalProperties)) out.additionalProperties = inline(schema.additionalProperties, definitions, seen)
  return out
}

function gvkMatches(definition: Json, gvk: GroupVersionKind): boolean {
  const list = Array.isArray(definition['x-kubernetes-group-version-kind']) ? definition['x-kubernetes-group-version-kind'] : []
  return list.some((g: Json) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)
}

export async function resolveSchema(stores: AdmissionStores | undefined, gvk: GroupVersionKind): Promise<Json | undefined> {
  const served = (await servedKinds(stores)).find((s) => s.group === gvk.group && s.version === gvk.version && s.kind === gvk.kind)
  if (served?.openAPIV3Schema) return inline(served.openAPIV3Schema, {}, [])
  const { definitions } = await loadOpenApiData()
  for (const [name, definition] of Object.entries(definitions)) {
    if (gvkMatches(definition, gvk)) return inline(definition, definitions, [name])
  }
  return undefined
}
