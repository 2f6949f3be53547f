/**
 * The internal (hub) form of an apiextensions.k8s.io/v1 CustomResourceDefinition spec, as the
 * reference validates it: `Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...`
 * copies versions[0].name to `version`, hoists per-version schemas, subresources and printer
 * columns that are identical in every version to the top-level `validation`, `subresources`
 * and `additionalPrinterColumns` (so their errors are reported there), and flattens
 * `conversion.webhook` to `conversion.webhookClientConfig` and `conversionReviewVersions`.
 * Also the JSON of internal structs (Go field names, no json tags) that bad values print.
 */
import { isPlainObject } from '../registry/object.js'
import { Rendered, goJSON } from './field/index.js'
import { type Obj, arr, obj, str } from './helpers.js'

export interface InternalVersion {
  name: string
  served: boolean
  storage: boolean
  deprecated: boolean
  deprecationWarning?: string
  schema?: Obj
  subresources?: Obj
  additionalPrinterColumns: Obj[]
  selectableFields: Obj[]
  /** The v1 version as written. */
  raw: Obj
}

export interface InternalSpec {
  group: string
  version: string
  names: Obj
  scope: string
  validation?: Obj
  subresources?: Obj
  additionalPrinterColumns: Obj[]
  selectableFields: Obj[]
  versions: InternalVersion[]
  conversion?: { strategy: string; webhookClientConfig?: Obj; conversionReviewVersions?: unknown[] }
  preserveUnknownFields: boolean
}

/** Semantic DeepEqual of two decoded values where absent and null are the same (pointers, slices). */
function sameValue(a: unknown, b: unknown): boolean {
  return goJSON(a ?? null) === goJSON(b ?? null)
}

/** The internal spec of a v1 spec. */
export function toInternalSpec(spec: Obj): InternalSpec {
  const versions: InternalVersion[] = arr(spec.versions).map((raw) => {
    const v = obj(raw)
    return {
      name: str(v.name),
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      ...(typeof v.deprecationWarning === 'string' ? { deprecationWarning: v.deprecationWarning } : {}),
      ...(isPlainObject(v.schema) ? { schema: v.schema } : {}),
      ...(isPlainObject(v.subresources) ? { subresources: v.subresources } : {}),
      additionalPrinterColumns: arr(v.additionalPrinterColumns).map(obj),
      selectableFields: arr(v.selectableFields).map(obj),
      raw: v,
    }
  })
  const out: InternalSpec = {
    group: str(spec.group),
    version: versions[0]?.name ?? '',
    names: obj(spec.names),
    scope: str(spec.scope),
    additionalPrinterColumns: [],
    selectableFields: [],
    versions,
    preserveUnknownFields: spec.preserveUnknownFields === true,
  }
  if (isPlainObject(spec.conversion)) {
    const c = spec.conversion
    const webhook = isPlainObject(c.webhook) ? c.webhook : undefined
    out.conversion = {
      strategy: str(c.strategy),
      ...(webhook && isPlainObject(webhook.clientConfig) ? { webhookClientConfig: webhook.clientConfig } : {}),
      ...(webhook && Array.isArray(webhook.conversionReviewVersions) ? { conversionReviewVersions: webhook.conversionReviewVersions } : {}),
    }
  }
  if (versions.length === 0) return out
  const first = versions[0]!
  const schemaSame = versions.every((v) => sameValue(v.schema, first.schema))
  const subresourcesSame = versions.every((v) => sameValue(v.subresources, first.subresources))
  const columnsSame = versions.every((v) => sameValue(v.additionalPrinterColumns.length ? v.additionalPrinterColumns : null, first.additionalPrinterColumns.length ? first.additionalPrinterColumns : null))
  const fieldsSame = versions.every((v) => sameValue(v.selectableFields.length ? v.selectableFields : null, first.selectableFields.length ? first.selectableFields : null))
  if (fieldsSame) out.selectableFields = first.selectableFields
  if (schemaSame && first.schema) out.validation = first.schema
  if (subresourcesSame && first.subresources) out.subresources = first.subresources
  if (columnsSame) out.additionalPrinterColumns = first.additionalPrinterColumns
  for (const v of versions) {
    if (schemaSame) delete v.schema
    if (subresourcesSame) delete v.subresources
    if (columnsSame) v.additionalPrinterColumns = []
    if (fieldsSame) v.selectableFields = []
  }
  return out
}

// ---- JSON of the internal structs (encoding/json of Go structs without json tags) ----

const nullable = (v: unknown, f: (x: Obj) => string): string => (isPlainObject(v) ? f(v) : 'null')
const slice = (v: unknown, f: (x: unknown) => string): string => (Array.isArray(v) ? `[${v.map(f).join(',')}]` : 'null')
const strPtr = (v: unknown): string => (typeof v === 'string' ? goJSON(v) : 'null')
const num = (v: unknown): string => (typeof v === 'number' ? goJSON(v) : 'null')
const sortedMap = (v: unknown, f: (x: Obj) => string): string => {
  if (!isPlainObject(v)) return 'null'
  const keys = Object.keys(v).sort()
  return `{${keys.map((k) => `${goJSON(k)}:${f(obj(v[k]))}`).join(',')}}`
}

function fields(pairs: [string, string][]): string {
  return `{${pairs.map(([k, v]) => `"${k}":${v}`).join(',')}}`
}

/** JSONSchemaProps (internal). */
export function schemaPropsJSON(s: Obj): string {
  const items = s.items
  const itemsJSON = Array.isArray(items)
    ? fields([['Schema', 'null'], ['JSONSchemas', slice(items, (x) => schemaPropsJSON(obj(x)))]])
    : isPlainObject(items)
      ? fields([['Schema', schemaPropsJSON(items)], ['JSONSchemas', 'null']])
      : 'null'
  const orBool = (v: unknown): string =>
    typeof v === 'boolean' ? fields([['Allows', String(v)], ['Schema', 'null']]) : isPlainObject(v) ? fields([['Allows', 'true'], ['Schema', schemaPropsJSON(v)]]) : 'null'
  const deps = isPlainObject(s.dependencies)
    ? `{${Object.keys(s.dependencies)
        .sort()
        .map((k) => {
          const d = (s.dependencies as Obj)[k]
          return `${goJSON(k)}:${fields([['Schema', isPlainObject(d) ? schemaPropsJSON(d) : 'null'], ['Property', Array.isArray(d) ? goJSON(d) : 'null']])}`
        })
        .join(',')}}`
    : 'null'
  const rule = (r: unknown): string => {
    const o = obj(r)
    return fields([['Rule', goJSON(str(o.rule))], ['Message', goJSON(str(o.message))], ['MessageExpression', goJSON(str(o.messageExpression))], ['Reason', strPtr(o.reason)], ['FieldPath', goJSON(str(o.fieldPath))], ['OptionalOldSelf', typeof o.optionalOldSelf === 'boolean' ? String(o.optionalOldSelf) : 'null']])
  }
  return fields([
    ['ID', goJSON(str(s.id))],
    ['Schema', goJSON(str(s.$schema))],
    ['Ref', strPtr(s.$ref)],
    ['Description', goJSON(str(s.description))],
    ['Type', goJSON(str(s.type))],
    ['Nullable', String(s.nullable === true)],
    ['Format', goJSON(str(s.format))],
    ['Title', goJSON(str(s.title))],
    ['Default', s.default === undefined ? 'null' : goJSON(s.default)],
    ['Maximum', num(s.maximum)],
    ['ExclusiveMaximum', String(s.exclusiveMaximum === true)],
    ['Minimum', num(s.minimum)],
    ['ExclusiveMinimum', String(s.exclusiveMinimum === true)],
    ['MaxLength', num(s.maxLength)],
    ['MinLength', num(s.minLength)],
    ['Pattern', goJSON(str(s.pattern))],
    ['MaxItems', num(s.maxItems)],
    ['MinItems', num(s.minItems)],
    ['UniqueItems', String(s.uniqueItems === true)],
    ['MultipleOf', num(s.multipleOf)],
    ['Enum', Array.isArray(s.enum) ? goJSON(s.enum) : 'null'],
    ['MaxProperties', num(s.maxProperties)],
    ['MinProperties', num(s.minProperties)],
    ['Required', Array.isArray(s.required) ? goJSON(s.required) : 'null'],
    ['Items', itemsJSON],
    ['AllOf', slice(s.allOf, (x) => schemaPropsJSON(obj(x)))],
    ['OneOf', slice(s.oneOf, (x) => schemaPropsJSON(obj(x)))],
    ['AnyOf', slice(s.anyOf, (x) => schemaPropsJSON(obj(x)))],
    ['Not', nullable(s.not, schemaPropsJSON)],
    ['Properties', sortedMap(s.properties, schemaPropsJSON)],
    ['AdditionalProperties', orBool(s.additionalProperties)],
    ['PatternProperties', sortedMap(s.patternProperties, schemaPropsJSON)],
    ['Dependencies', deps],
    ['AdditionalItems', orBool(s.additionalItems)],
    ['Definitions', sortedMap(s.definitions, schemaPropsJSON)],
    ['ExternalDocs', nullable(s.externalDocs, (d) => fields([['Description', goJSON(str(d.description))], ['URL', goJSON(str(d.url))]]))],
    ['Example', s.example === undefined ? 'null' : goJSON(s.example)],
    ['XPreserveUnknownFields', typeof s['x-kubernetes-preserve-unknown-fields'] === 'boolean' ? String(s['x-kubernetes-preserve-unknown-fields']) : 'null'],
    ['XEmbeddedResource', String(s['x-kubernetes-embedded-resource'] === true)],
    ['XIntOrString', String(s['x-kubernetes-int-or-string'] === true)],
    ['XListMapKeys', Array.isArray(s['x-kubernetes-list-map-keys']) ? goJSON(s['x-kubernetes-list-map-keys']) : 'null'],
    ['XListType', strPtr(s['x-kubernetes-list-type'])],
    ['XMapType', strPtr(s['x-kubernetes-map-type'])],
    ['XValidations', slice(s['x-kubernetes-validations'], rule)],
  ])
}

function subresourcesJSON(s: Obj): string {
  const scale = s.scale
  return fields([
    ['Status', isPlainObject(s.status) ? '{}' : 'null'],
    ['Scale', nullable(scale, (c) => fields([['SpecReplicasPath', goJSON(str(c.specReplicasPath))], ['StatusReplicasPath', goJSON(str(c.statusReplicasPath))], ['LabelSelectorPath', strPtr(c.labelSelectorPath)]]))],
  ])
}

function columnJSON(c: unknown): string {
  const o = obj(c)
  return fields([['Name', goJSON(str(o.name))], ['Type', goJSON(str(o.type))], ['Format', goJSON(str(o.format))], ['Description', goJSON(str(o.description))], ['Priority', num(o.priority) === 'null' ? '0' : num(o.priority)], ['JSONPath', goJSON(str(o.jsonPath))]])
}

function versionJSON(v: InternalVersion): string {
  return fields([
    ['Name', goJSON(v.name)],
    ['Served', String(v.served)],
    ['Storage', String(v.storage)],
    ['Deprecated', String(v.deprecated)],
    ['DeprecationWarning', strPtr(v.deprecationWarning)],
    ['Schema', v.schema ? fields([['OpenAPIV3Schema', nullable(v.schema.openAPIV3Schema, schemaPropsJSON)]]) : 'null'],
    ['Subresources', v.subresources ? subresourcesJSON(v.subresources) : 'null'],
    ['AdditionalPrinterColumns', v.additionalPrinterColumns.length ? `[${v.additionalPrinterColumns.map(columnJSON).join(',')}]` : 'null'],
    ['SelectableFields', v.selectableFields.length ? `[${v.selectableFields.map((f) => fields([['JSONPath', goJSON(str(f.jsonPath))]])).join(',')}]` : 'null'],
  ])
}

/** The bad value `spec.Versions` ([]CustomResourceDefinitionVersion). */
export function versionsValue(versions: readonly InternalVersion[]): Rendered {
  return new Rendered(versions.length === 0 ? 'null' : `[${versions.map(versionJSON).join(',')}]`)
}

/** The bad value `*schema` (a JSONSchemaProps). */
export function schemaValue(schema: Obj): Rendered {
  return new Rendered(schemaPropsJSON(schema))
}
