/**
 * `/openapi/v2` and `/openapi/v3` from the reference's document, reduced to the served group
 * versions and resources (--runtime-config included), with the custom resources' schemas added
 * to their group version. v3 documents are converted from v2 as kube-openapi does it
 * (components/schemas, `#/components/schemas/...` refs, a `$ref` with siblings wrapped in
 * allOf, body parameters as requestBody, responses per produced media type); the global
 * parameters are inlined so no reference dangles. Caching follows the reference's handlers:
 * an ETag that is the SHA-512 of the JSON, 304 on If-None-Match, and for v3 the hash in the
 * index's URLs, served `public, immutable` (an outdated hash is redirected to the current one).
 */
import { createHash } from 'node:crypto'
import type { Handler, Request, Response } from '../http/types.js'
import { parseMediaRanges } from './negotiation.js'
import { type Json, type OpenApiData, loadOpenApiData } from './openapi-data.js'
import type { AggregatedApis } from './aggregated-apis.js'
import type { Strategy } from './registry/strategy.js'

function gvPathOf(s: Pick<Strategy, 'group' | 'version'>): string {
  return s.group === '' ? `api/${s.version}` : `apis/${s.group}/${s.version}`
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T
}

// ---- custom resources ----

/** The reference's definition name of a custom resource: the group reversed, the version, the kind. */
function customDefinitionName(s: Pick<Strategy, 'group' | 'version' | 'kind'>): string {
  return `${s.group.split('.').reverse().join('.')}.${s.version}.${s.kind}`
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta'
const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status'
const SCALE = 'io.k8s.api.autoscaling.v1.Scale'
const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions'
const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch'

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources'
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds'
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

/** v2 has no nullable: the reference drops it when publishing a CRD's schema in v2. */
function withoutNullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNullable)
  if (!isObj(schema)) return schema
  const out: Json = {}
  for (const [k, v] of Object.entries(schema)) if (k !== 'nullable') out[k] = withoutNullable(v)
  return out
}

/** The v2 definitions of a custom resource kind and its list. */
function customDefinitions(s: Strategy): Record<string, Json> {
  const name = customDefinitionName(s)
  const schema = clone(s.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })
  const properties = isObj(schema.properties) ? schema.properties : {}
  schema.properties = {
    ...properties,
    apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
    kind: { description: KIND_DESCRIPTION, type: 'string' },
    metadata: { $ref: `#/definitions/${OBJECT_META}`, description: METADATA_DESCRIPTION },
  }
  schema['x-kubernetes-group-version-kind'] = [{ group: s.group, kind: s.kind, version: s.version }]
  return {
    [name]: withoutNullable(schema) as Json,
    [`${name}List`]: {
      description: `${s.kind}List is a list of ${s.kind}`,
      properties: {
        apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
        items: { description: `List of ${s.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: `#/definitions/${name}` }, type: 'array' },
        kind: { description: KIND_DESCRIPTION, type: 'string' },
        metadata: { $ref: `#/definitions/${LIST_META}`, description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
      },
      required: ['items'],
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: s.group, kind: `${s.kind}List`, version: s.version }],
    },
  }
}

const JSON_TYPES = ['application/json', 'application/yaml']
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']

function query(name: string, description: string, type = 'string'): Json {
  return { description, in: 'query', name, type, uniqueItems: true }
}
const DRY_RUN = query('dryRun', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed')
const FIELD_MANAGER = query('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.')
const FIELD_VALIDATION = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.',
)
const FORCE = query('force', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.', 'boolean')

function op(action: string, s: Strategy, id: string, extra: Json): Json {
  return {
    consumes: ['*/*'],
    operationId: id,
    produces: JSON_TYPES,
    schemes: ['https'],
    tags: [`${s.group.split('.').map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('')}_${s.version}`],
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: s.group, kind: s.kind, version: s.version },
    ...extra,
  }
}

function ok(ref: string, code = '200', description = 'OK'): Json {
  return { [code]: { description, schema: { $ref: `#/definitions/${ref}` } }, '401': { description: 'Unauthorized' } }
}

function bodyParam(ref: string): Json {
  return { in: 'body', name: 'body', required: true, schema: { $ref: `#/definitions/${ref}` } }
}

/** The v2 paths of a custom resource: collection, item, and its status/scale subresources. */
function customPaths(s: Strategy): Record<string, Json> {
  const def = customDefinitionName(s)
  const base = `/apis/${s.group}/${s.version}/${s.namespaced ? 'namespaces/{namespace}/' : ''}${s.resource}`
  const ns = s.namespaced ? [{ description: 'object name and auth scope, such as for teams and projects', in: 'path', name: 'namespace', required: true, type: 'string', uniqueItems: true }] : []
  const name = { description: `name of the ${s.kind}`, in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true }
  const idKind = `${s.namespaced ? 'Namespaced' : ''}${s.kind}`
  const paths: Record<string, Json> = {
    [base]: {
      get: op('list', s, `list${idKind}`, { description: `list objects of kind ${s.kind}`, responses: ok(`${def}List`) }),
      post: op('post', s, `create${idKind}`, {
        description: `create a ${s.kind}`,
        parameters: [bodyParam(def), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        responses: { '200': { description: 'OK', schema: { $ref: `#/definitions/${def}` } }, '201': { description: 'Created', schema: { $ref: `#/definitions/${def}` } }, '202': { description: 'Accepted', schema: { $ref: `#/definitions/${def}` } }, '401': { description: 'Unauthorized' } },
      }),
      delete: op('deletecollection', s, `deletecollection${idKind}`, { description: `delete collection of ${s.kind}`, responses: ok(STATUS) }),
      parameters: ns,
    },
    [`${base}/{name}`]: {
      get: op('get', s, `read${idKind}`, { description: `read the specified ${s.kind}`, responses: ok(def) }),
      put: op('put', s, `replace${idKind}`, { description: `replace the specified ${s.kind}`, parameters: [bodyParam(def), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], responses: ok(def) }),
      patch: op('patch', s, `patch${idKind}`, {
        consumes: PATCH_TYPES,
        description: `partially update the specified ${s.kind}`,
        parameters: [bodyParam(PATCH), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
        responses: ok(def),
      }),
      delete: op('delete', s, `delete${idKind}`, { description: `delete a ${s.kind}`, parameters: [bodyParam(DELETE_OPTIONS), DRY_RUN], responses: ok(STATUS) }),
      parameters: [name, ...ns],
    },
  }
  for (const sub of s.subresources ?? []) {
    const ref = sub === 'scale' ? SCALE : def
    const Sub = sub[0]!.toUpperCase() + sub.slice(1)
    paths[`${base}/{name}/${sub}`] = {
      get: op('get', s, `read${idKind}${Sub}`, { description: `read ${sub} of the specified ${s.kind}`, responses: ok(ref) }),
      put: op('put', s, `replace${idKind}${Sub}`, { description: `replace ${sub} of the specified ${s.kind}`, parameters: [bodyParam(ref), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], responses: ok(ref) }),
      patch: op('patch', s, `patch${idKind}${Sub}`, {
        consumes: PATCH_TYPES,
        description: `partially update ${sub} of the specified ${s.kind}`,
        parameters: [bodyParam(PATCH), DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
        responses: ok(ref),
      }),
      parameters: [name, ...ns],
    }
  }
  if (s.namespaced) {
    paths[`/apis/${s.group}/${s.version}/${s.resource}`] = {
      get: op('list', s, `list${s.kind}ForAllNamespaces`, { description: `list objects of kind ${s.kind}`, responses: ok(`${def}List`) }),
      parameters: [],
    }
  }
  return paths
}

// ---- assembling a v2 document ----

interface Part {
  gv: string
  path: string
  item: Json
}

/** The paths served for `kinds`, each with the document (group version) it belongs to. */
function servedParts(data: OpenApiData, kinds: readonly Strategy[]): { parts: Part[]; customDefs: Record<string, Json> } {
  const builtin = kinds.filter((k) => !k.customResource)
  const served = new Set(builtin.flatMap((k) => ['', ...(k.subresources ?? [])].map((sub) => `${gvPathOf(k)} ${k.resource} ${sub}`)))
  const gvs = new Set(builtin.map(gvPathOf))
  const groups = new Set(builtin.filter((k) => k.group !== '').map((k) => `apis/${k.group}`))
  const parts: Part[] = []
  for (const p of data.paths) {
    const keep = p.resource !== '' ? served.has(`${p.gv} ${p.resource} ${p.subresource}`) : p.gv === '' || gvs.has(p.gv) || groups.has(p.gv)
    if (keep) parts.push({ gv: p.gv === '' ? p.path.replace(/^\/|\/$/g, '') : p.gv, path: p.path, item: p.item })
  }
  const customDefs: Record<string, Json> = {}
  for (const s of kinds.filter((k) => k.customResource)) {
    Object.assign(customDefs, customDefinitions(s))
    for (const [path, item] of Object.entries(customPaths(s))) parts.push({ gv: gvPathOf(s), path, item })
  }
  return { parts, customDefs }
}

/** The definitions (and global parameters) reachable from `roots`. */
function reachable(roots: unknown, definitions: Record<string, Json>, parameters: Record<string, Json>): { defs: Record<string, Json>; params: Record<string, Json> } {
  const defs: Record<string, Json> = {}
  const params: Record<string, Json> = {}
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk)
    if (!isObj(v)) return
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') {
        const d = /^#\/definitions\/(.+)$/.exec(x)?.[1]
        if (d !== undefined && !(d in defs) && definitions[d]) {
          defs[d] = definitions[d]
          walk(definitions[d])
        }
        const p = /^#\/parameters\/(.+)$/.exec(x)?.[1]
        if (p !== undefined && !(p in params) && parameters[p]) {
          params[p] = parameters[p]
          walk(parameters[p])
        }
      } else walk(x)
    }
  }
  walk(roots)
  return { defs, params }
}

function sortedObject<T>(entries: Array<[string, T]>): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** The v2 document of every served path. */
export function buildV2(data: OpenApiData, kinds: readonly Strategy[]): Json {
  const { parts, customDefs } = servedParts(data, kinds)
  const definitions = { ...data.definitions, ...customDefs }
  const { defs, params } = reachable(parts.map((p) => p.item), definitions, data.parameters)
  return {
    swagger: data.swagger,
    info: data.info,
    paths: sortedObject(parts.map((p) => [p.path, p.item])),
    definitions: sortedObject(Object.entries(defs)),
    parameters: sortedObject(Object.entries(params)),
    securityDefinitions: data.securityDefinitions,
    security: data.security,
  }
}

// ---- v2 to v3 ----

/** A schema in v3 form: refs to components, a `$ref` with siblings wrapped in allOf. */
export function convertSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(convertSchema)
  if (!isObj(schema)) return schema
  const out: Json = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace(/^#\/definitions\//, '#/components/schemas/')
    else if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
      out[k] = isObj(v) ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, convertSchema(s)])) : v
    } else if (k === 'items' || k === 'additionalProperties' || k === 'additionalItems' || k === 'not') out[k] = convertSchema(v)
    else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') out[k] = convertSchema(v)
    else out[k] = v
  }
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out
    return { ...rest, allOf: [{ $ref }] }
  }
  return out
}

function convertParameter(param: Json): Json {
  const { type, format, uniqueItems, schema, items: _items, collectionFormat: _cf, ...rest } = param
  void _items, void _cf
  return {
    ...rest,
    schema: schema !== undefined ? convertSchema(schema) : { type, ...(format !== undefined ? { format } : {}), ...(uniqueItems !== undefined ? { uniqueItems } : {}) },
  }
}

function convertOperation(op: Json, parameters: Record<string, Json>): Json {
  const { consumes, produces, parameters: opParams, responses, schemes: _s, ...rest } = op
  void _s
  const out: Json = { ...rest }
  const params: Json[] = []
  for (const raw of (opParams as Json[] | undefined) ?? []) {
    const p = typeof raw.$ref === 'string' ? (parameters[raw.$ref.replace('#/parameters/', '')] ?? raw) : raw
    if (p.in === 'body' && p.schema !== undefined) {
      out.requestBody = { content: Object.fromEntries(((consumes as string[] | undefined) ?? []).map((c) => [c, { schema: convertSchema(p.schema) }])), ...(p.required ? { required: true } : {}) }
    } else params.push(convertParameter(p))
  }
  if (params.length > 0) out.parameters = params
  out.responses = Object.fromEntries(
    Object.entries((responses as Record<string, Json> | undefined) ?? {}).map(([code, r]) => {
      const { schema, ...resp } = r
      return [code, schema === undefined ? resp : { ...resp, content: Object.fromEntries(((produces as string[] | undefined) ?? []).map((m) => [m, { schema: convertSchema(schema) }])) }]
    }),
  )
  return out
}

function convertPathItem(item: Json, parameters: Record<string, Json>): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(item)) {
    if (k === 'parameters') {
      const list = (v as Json[]).map((raw) => (typeof raw.$ref === 'string' ? (parameters[raw.$ref.replace('#/parameters/', '')] ?? raw) : raw))
      if (list.length > 0) out.parameters = list.map(convertParameter)
    } else if (isObj(v)) out[k] = convertOperation(v, parameters)
    else out[k] = v
  }
  return out
}

/** The v3 documents, by their path under /openapi/v3 (`api/v1`, `apis/apps/v1`, `apis/apps`, `api`, `apis`). */
export function buildV3(data: OpenApiData, kinds: readonly Strategy[]): Map<string, Json> {
  const { parts, customDefs } = servedParts(data, kinds)
  const definitions = { ...data.definitions, ...customDefs }
  const byGv = new Map<string, Part[]>()
  for (const p of parts) byGv.set(p.gv, [...(byGv.get(p.gv) ?? []), p])
  const docs = new Map<string, Json>()
  for (const [gv, gvParts] of [...byGv].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Refs through global parameters (the body parameters) are followed too.
    const { defs: schemas } = reachable(gvParts.map((p) => p.item), definitions, data.parameters)
    docs.set(gv, {
      openapi: '3.0.0',
      info: data.info,
      paths: sortedObject(gvParts.map((p) => [p.path, convertPathItem(p.item, data.parameters)])),
      components: {
        schemas: sortedObject(Object.entries(schemas).map(([name, s]) => [name, convertSchema(s) as Json])),
        securitySchemes: data.securityDefinitions,
      },
    })
  }
  return docs
}

// ---- serving ----

/** The reference's hash of a document: SHA-512 of its JSON, upper-case hex. */
function documentHash(json: string): string {
  return createHash('sha512').update(json).digest('hex').toUpperCase()
}

interface Built {
  /** The protobuf form is encoded on the first request for it. */
  v2: { json: string; etag: string; protobuf?: Promise<Buffer> }
  v3: Map<string, { json: string; etag: string }>
  v3Index: string
}

/** The key of what the documents depend on: the served kinds and the custom resources' schemas. */
function kindsKey(kinds: readonly Strategy[]): string {
  return JSON.stringify(kinds.map((k) => [k.group, k.version, k.resource, k.kind, k.namespaced, k.subresources ?? [], k.customResource ? (k.openAPIV3Schema ?? null) : null]))
}

/** Whether JSON is acceptable for a v3 document (no Accept header is JSON); v3 has no protobuf form here. */
function acceptsJson(accept: string | undefined): boolean {
  const ranges = parseMediaRanges(accept)
  if (ranges.length === 0) return true
  return ranges.some((r) => r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*')
}

/** The v2 media type in the reference's response, whichever of its two spellings was asked for. */
const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'
const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'

/**
 * The v2 form to serve, as kube-openapi picks it: the first clause in preference order that
 * matches JSON, then the deprecated protobuf spelling (kubectl up to 1.28 sends it), then the
 * current one; none matching is 406.
 */
function v2Format(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const ranges = parseMediaRanges(accept)
  if (ranges.length === 0) return 'json'
  for (const { type } of ranges) {
    const [major, minor] = type.split('/') as [string, string]
    for (const [candidate, format] of [['application/json', 'json'], [OPENAPI_V2_PROTOBUF_DEPRECATED, 'protobuf'], [OPENAPI_V2_PROTOBUF, 'protobuf']] as const) {
      const [cMajor, cMinor] = candidate.split('/') as [string, string]
      if ((major === cMajor || major === '*') && (minor === cMinor || minor === '*')) return format
    }
  }
  return undefined
}

function notAcceptable(res: Response): void {
  res.statusCode = 406
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.end('Not Acceptable')
}

/** The body, or 304 when If-None-Match names its ETag (as Go's http.ServeContent does). */
function serveJson(req: Request, res: Response, json: string | Buffer, etag: string, lastModified: string, contentType = 'application/json'): void {
  const quoted = JSON.stringify(etag)
  res.setHeader('Etag', quoted)
  res.setHeader('Last-Modified', lastModified)
  const inm = req.headers['if-none-match']
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === quoted || t.trim() === '*')) {
    res.statusCode = 304
    res.end()
    return
  }
  res.setHeader('Content-Type', contentType)
  res.statusCode = 200
  res.end(req.method === 'HEAD' ? '' : json)
}

/**
 * The /openapi handlers over the served kinds now (built-in ones and custom resources).
 * Documents are built when first asked for and rebuilt when the served kinds change.
 */
/**
 * The local v2 document with the extension servers' paths and definitions added (the reference's
 * aggregator merges each APIService's document into its own; a local entry is kept on a clash).
 */
function mergeV2(local: Json, remote: readonly Json[]): Json {
  if (remote.length === 0) return local
  const paths = { ...(local.paths as Json) }
  const definitions = { ...(local.definitions as Json) }
  for (const doc of remote) {
    for (const [path, item] of Object.entries((doc.paths ?? {}) as Json)) paths[path] ??= item
    for (const [name, schema] of Object.entries((doc.definitions ?? {}) as Json)) definitions[name] ??= schema
  }
  return { ...local, paths, definitions }
}

export function openApiHandler(servedKinds: () => Promise<readonly Strategy[]>, extensionServers?: AggregatedApis): Handler {
  let cache: { key: string; built: Built; lastModified: string } | undefined
  const build = async (): Promise<{ built: Built; lastModified: string }> => {
    const kinds = await servedKinds()
    const key = `${kindsKey(kinds)}|${extensionServers?.openApiRevision() ?? 0}`
    if (cache?.key === key) return cache
    const data = await loadOpenApiData()
    const v2json = JSON.stringify(mergeV2(buildV2(data, kinds), extensionServers?.openApiV2Documents() ?? []))
    const v3 = new Map<string, { json: string; etag: string }>()
    for (const [gv, doc] of [...buildV3(data, kinds), ...(extensionServers?.openApiV3Documents() ?? [])]) {
      const json = JSON.stringify(doc)
      v3.set(gv, { json, etag: documentHash(json) })
    }
    const index = { paths: Object.fromEntries([...v3].map(([gv, d]) => [gv, { serverRelativeURL: `/openapi/v3/${gv}?hash=${d.etag}` }])) }
    cache = { key, built: { v2: { json: v2json, etag: documentHash(v2json) }, v3, v3Index: JSON.stringify(index) }, lastModified: new Date().toUTCString() }
    return cache
  }
  return async (req, res, ctx) => {
    const path = ctx.url.pathname.replace(/\/+$/, '')
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.statusCode = 405
      res.end()
      return
    }
    const accept = req.headers.accept
    if (path === '/openapi/v2') {
      // The reference's handler varies on Accept whatever it answers.
      res.setHeader('Vary', 'Accept')
      const format = v2Format(accept)
      if (format === undefined) return notAcceptable(res)
      const { built, lastModified } = await build()
      if (format === 'json') return serveJson(req, res, built.v2.json, built.v2.etag, lastModified)
      const v2 = built.v2
      v2.protobuf ??= import('./openapi-v2-protobuf.js').then((m) => m.encodeOpenApiV2(JSON.parse(v2.json) as Json))
      // The ETag is the JSON document's, as the reference computes it for both forms.
      return serveJson(req, res, await v2.protobuf, v2.etag, lastModified, OPENAPI_V2_PROTOBUF)
    }
    if (path === '/openapi/v3') {
      const { built } = await build()
      res.setHeader('Content-Type', 'application/json')
      res.statusCode = 200
      res.end(req.method === 'HEAD' ? '' : built.v3Index)
      return
    }
    const gv = path.replace(/^\/openapi\/v3\//, '')
    const { built, lastModified } = await build()
    const doc = built.v3.get(gv)
    if (!doc) {
      res.statusCode = 404
      res.setHeader('Content-Type', 'text/plain; charset=utf-8')
      res.end('404 page not found\n')
      return
    }
    if (!acceptsJson(accept)) return notAcceptable(res)
    const hash = ctx.url.searchParams.get('hash')
    if (hash !== null && hash !== '') {
      if (hash !== doc.etag) {
        res.statusCode = 301
        res.setHeader('Location', `/openapi/v3/${gv}?hash=${doc.etag}`)
        res.end()
        return
      }
      res.setHeader('Vary', 'Accept')
      res.setHeader('Cache-Control', 'public, immutable')
      const expires = new Date()
      expires.setUTCFullYear(expires.getUTCFullYear() + 1)
      res.setHeader('Expires', expires.toUTCString())
    }
    serveJson(req, res, doc.json, doc.etag, lastModified)
  }
}
