/**
 * The OpenAPI v2 document in gnostic's protobuf form (`openapi.v2.Document`), which kubectl
 * 1.27/1.28 ask `/openapi/v2` for. The JSON document is mapped onto the messages as gnostic's
 * ParseDocument does it: ordered (name, value) pairs for maps, oneofs for a parameter's location
 * and for `$ref` alternatives, and every `x-` key (and default, enum, example) as an Any whose
 * `yaml` holds the value's YAML, which is where kubectl reads the patch and GVK extensions from.
 * Loaded on the first protobuf request only.
 */
import protobuf from 'protobufjs/light.js'
import { dump } from 'js-yaml'
import { OPENAPI_V2_DESCRIPTOR } from './openapi-v2-descriptor.js'

type Json = Record<string, unknown>
type Message = Record<string, unknown>

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

let documentType: protobuf.Type | undefined

/** The Document message type (also for decoding in tests). */
export function openApiV2DocumentType(): protobuf.Type {
  if (!documentType) {
    const root = protobuf.Root.fromJSON(OPENAPI_V2_DESCRIPTOR as protobuf.INamespace)
    root.resolveAll()
    documentType = root.lookupType('openapi.v2.Document')
  }
  return documentType
}

/** gnostic's Any for a free-form value: its YAML (yaml.Marshal's form, a trailing newline included). */
function anyOf(value: unknown): Message {
  return { yaml: dump(value, { lineWidth: -1, noRefs: true, sortKeys: false }) }
}

function extensions(obj: Json): Message[] {
  return Object.entries(obj)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyOf(value) }))
}

/** Copies the listed JSON keys to their message fields when present with the expected JSON type. */
function copy(out: Message, obj: Json, keys: Record<string, string>): void {
  for (const [jsonKey, field] of Object.entries(keys)) {
    const v = obj[jsonKey]
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[field] = v
  }
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined)

function set(out: Message, field: string, value: unknown): void {
  if (value !== undefined) out[field] = value
}

const SCHEMA_SCALARS: Record<string, string> = {
  $ref: '_ref', format: 'format', title: 'title', description: 'description', multipleOf: 'multiple_of',
  maximum: 'maximum', exclusiveMaximum: 'exclusive_maximum', minimum: 'minimum', exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length', minLength: 'min_length', pattern: 'pattern', maxItems: 'max_items', minItems: 'min_items',
  uniqueItems: 'unique_items', maxProperties: 'max_properties', minProperties: 'min_properties',
  discriminator: 'discriminator', readOnly: 'read_only',
}

function externalDocs(v: unknown): Message | undefined {
  if (!isObj(v)) return undefined
  const out: Message = {}
  copy(out, v, { description: 'description', url: 'url' })
  set(out, 'vendor_extension', extensions(v))
  return out
}

function schemaMessage(s: Json): Message {
  const out: Message = {}
  copy(out, s, SCHEMA_SCALARS)
  if ('default' in s) out.default = anyOf(s.default)
  set(out, 'required', strings(s.required))
  if (Array.isArray(s.enum)) out.enum = s.enum.map(anyOf)
  if (typeof s.additionalProperties === 'boolean') out.additional_properties = { boolean: s.additionalProperties }
  else if (isObj(s.additionalProperties)) out.additional_properties = { schema: schemaMessage(s.additionalProperties) }
  if (typeof s.type === 'string') out.type = { value: [s.type] }
  else if (Array.isArray(s.type)) out.type = { value: strings(s.type) }
  if (isObj(s.items)) out.items = { schema: [schemaMessage(s.items)] }
  else if (Array.isArray(s.items)) out.items = { schema: s.items.filter(isObj).map(schemaMessage) }
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.filter(isObj).map(schemaMessage)
  if (isObj(s.properties)) out.properties = { additional_properties: named(s.properties, schemaMessage) }
  set(out, 'external_docs', externalDocs(s.externalDocs))
  if ('example' in s) out.example = anyOf(s.example)
  out.vendor_extension = extensions(s)
  return out
}

function named(obj: Json, convert: (v: Json) => Message): Message[] {
  return Object.entries(obj)
    .filter((e): e is [string, Json] => isObj(e[1]))
    .map(([name, value]) => ({ name, value: convert(value) }))
}

const PRIMITIVE_SCALARS: Record<string, string> = {
  type: 'type', format: 'format', collectionFormat: 'collection_format', maximum: 'maximum',
  exclusiveMaximum: 'exclusive_maximum', minimum: 'minimum', exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length', minLength: 'min_length', pattern: 'pattern', maxItems: 'max_items', minItems: 'min_items',
  uniqueItems: 'unique_items', multipleOf: 'multiple_of',
}

/** A non-body parameter's or PrimitivesItems' type and validation keywords. */
function primitives(out: Message, p: Json): Message {
  copy(out, p, PRIMITIVE_SCALARS)
  if (isObj(p.items)) out.items = primitives({}, p.items)
  if ('default' in p) out.default = anyOf(p.default)
  if (Array.isArray(p.enum)) out.enum = p.enum.map(anyOf)
  out.vendor_extension = extensions(p)
  return out
}

const SUB_SCHEMA: Record<string, string> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
}

function parameterMessage(p: Json): Message {
  const common: Message = {}
  copy(common, p, { description: 'description', name: 'name', in: 'in', required: 'required' })
  if (p.in === 'body') {
    if (isObj(p.schema)) common.schema = schemaMessage(p.schema)
    common.vendor_extension = extensions(p)
    return { body_parameter: common }
  }
  const sub = SUB_SCHEMA[typeof p.in === 'string' ? p.in : ''] ?? SUB_SCHEMA.query!
  if (sub === SUB_SCHEMA.query || sub === SUB_SCHEMA.formData) copy(common, p, { allowEmptyValue: 'allow_empty_value' })
  return { non_body_parameter: { [sub]: primitives(common, p) } }
}

function parametersItem(p: Json): Message {
  if (typeof p.$ref === 'string') {
    const ref: Message = { _ref: p.$ref }
    copy(ref, p, { description: 'description' })
    return { json_reference: ref }
  }
  return { parameter: parameterMessage(p) }
}

function responseValue(r: Json): Message {
  if (typeof r.$ref === 'string') return { json_reference: { _ref: r.$ref } }
  const out: Message = {}
  copy(out, r, { description: 'description' })
  if (isObj(r.schema)) out.schema = { schema: schemaMessage(r.schema) }
  out.vendor_extension = extensions(r)
  return { response: out }
}

function operation(op: Json): Message {
  const out: Message = {}
  set(out, 'tags', strings(op.tags))
  copy(out, op, { summary: 'summary', description: 'description', operationId: 'operation_id', deprecated: 'deprecated' })
  set(out, 'external_docs', externalDocs(op.externalDocs))
  set(out, 'produces', strings(op.produces))
  set(out, 'consumes', strings(op.consumes))
  if (Array.isArray(op.parameters)) out.parameters = op.parameters.filter(isObj).map(parametersItem)
  if (isObj(op.responses)) {
    const responses = op.responses
    out.responses = {
      response_code: Object.entries(responses)
        .filter((e): e is [string, Json] => !e[0].startsWith('x-') && isObj(e[1]))
        .map(([name, value]) => ({ name, value: responseValue(value) })),
      vendor_extension: extensions(responses),
    }
  }
  set(out, 'schemes', strings(op.schemes))
  if (Array.isArray(op.security)) out.security = op.security.filter(isObj).map(securityRequirement)
  out.vendor_extension = extensions(op)
  return out
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const

function pathItem(item: Json): Message {
  const out: Message = {}
  copy(out, item, { $ref: '_ref' })
  for (const m of METHODS) if (isObj(item[m])) out[m] = operation(item[m])
  if (Array.isArray(item.parameters)) out.parameters = item.parameters.filter(isObj).map(parametersItem)
  out.vendor_extension = extensions(item)
  return out
}

function securityRequirement(r: Json): Message {
  return { additional_properties: Object.entries(r).map(([name, scopes]) => ({ name, value: { value: strings(scopes) ?? [] } })) }
}

function securityDefinition(d: Json): Message {
  const out: Message = {}
  copy(out, d, { type: 'type', name: 'name', in: 'in', description: 'description' })
  out.vendor_extension = extensions(d)
  if (d.type === 'basic') {
    delete out.name
    delete out.in
    return { basic_authentication_security: out }
  }
  return { api_key_security: out }
}

function info(i: Json): Message {
  const out: Message = {}
  copy(out, i, { title: 'title', version: 'version', description: 'description', termsOfService: 'terms_of_service' })
  if (isObj(i.contact)) {
    const contact: Message = {}
    copy(contact, i.contact, { name: 'name', url: 'url', email: 'email' })
    out.contact = contact
  }
  if (isObj(i.license)) {
    const license: Message = {}
    copy(license, i.license, { name: 'name', url: 'url' })
    out.license = license
  }
  out.vendor_extension = extensions(i)
  return out
}

/** The JSON v2 document as the Document message's plain object. */
function documentMessage(doc: Json): Message {
  const out: Message = {}
  copy(out, doc, { swagger: 'swagger', host: 'host', basePath: 'base_path' })
  if (isObj(doc.info)) out.info = info(doc.info)
  set(out, 'schemes', strings(doc.schemes))
  set(out, 'consumes', strings(doc.consumes))
  set(out, 'produces', strings(doc.produces))
  if (isObj(doc.paths)) {
    const paths = doc.paths
    out.paths = {
      vendor_extension: extensions(paths),
      path: Object.entries(paths)
        .filter((e): e is [string, Json] => !e[0].startsWith('x-') && isObj(e[1]))
        .map(([name, value]) => ({ name, value: pathItem(value) })),
    }
  }
  if (isObj(doc.definitions)) out.definitions = { additional_properties: named(doc.definitions, schemaMessage) }
  if (isObj(doc.parameters)) out.parameters = { additional_properties: named(doc.parameters, parameterMessage) }
  if (Array.isArray(doc.security)) out.security = doc.security.filter(isObj).map(securityRequirement)
  if (isObj(doc.securityDefinitions)) out.security_definitions = { additional_properties: named(doc.securityDefinitions, securityDefinition) }
  set(out, 'external_docs', externalDocs(doc.externalDocs))
  out.vendor_extension = extensions(doc)
  return out
}

/** The document's protobuf bytes. */
export function encodeOpenApiV2(doc: Json): Buffer {
  const type = openApiV2DocumentType()
  return Buffer.from(type.encode(documentMessage(doc)).finish())
}
