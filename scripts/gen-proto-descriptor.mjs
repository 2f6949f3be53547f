#!/usr/bin/env node
// Generates src/core/protobuf/generated/k8s-descriptor.json from the reference's go-to-protobuf
// .proto files (default: ../shared/proto, or ../../shared/proto from a worktree; a first argument overrides)
// and its OpenAPI v2 document (<shared>/openapi/swagger.json; a second argument overrides).
//
// The artefact:
//   proto:     the messages in protobufjs JSON form (Root.toJSON without comments and options)
//   kinds:     { "<apiVersion>/<Kind>": "<full message name>" } from the swagger definitions'
//              x-kubernetes-group-version-kind (the reference registers those GVKs for the message)
//   anyGroup:  { "<Kind>": "<message>" } meta/v1 types registered in every group version
//              (metav1.AddToGroupVersion: WatchEvent and the options types; Status and the
//              discovery types are "unversioned", i.e. v1, but accepted under any apiVersion)
//   json:      { "<message>": { "<protoField>": "<jsonName>" | "" } } only where the JSON form differs
//              from the proto field: a different JSON name, or "" for an embedded Go struct whose
//              fields are inlined into the parent's JSON (`json:",inline"`)
//   optional:  { "<message>": ["<field>", ...] } scalar (string/bool/integer) fields marked
//              `+optional` in the Go doc comments (the decoder's omitempty rule, see json-form.ts)
//   listWrappers: [ "<message>" ] messages that stand for a Go named slice type ([]string and so on):
//              one `repeated items = 1` field, JSON form is the array itself
import protobuf from 'protobufjs'
import { existsSync, readFileSync, writeFileSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
// The shared tree sits next to the main checkout; worktrees live one level deeper.
const shared = [resolve(root, '../shared'), resolve(root, '../../shared')].find((dir) => existsSync(dir)) ?? resolve(root, '../shared')
const protoDir = resolve(process.argv[2] ?? join(shared, 'proto'))
const swaggerPath = resolve(process.argv[3] ?? join(shared, 'openapi/swagger.json'))
const output = resolve(root, 'src/core/protobuf/generated/k8s-descriptor.json')

const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (name.endsWith('.proto')) files.push(relative(protoDir, path))
  }
}
walk(protoDir)

const pbRoot = new protobuf.Root()
// Imports name paths relative to the tree's root ("k8s.io/apimachinery/..."), as protoc's -I would.
pbRoot.resolvePath = (_origin, target) => join(protoDir, target)
pbRoot.loadSync(files, { keepCase: true, alternateCommentMode: true })
pbRoot.resolveAll()

const swagger = JSON.parse(readFileSync(swaggerPath, 'utf8'))
const definitions = swagger.definitions ?? {}

const messages = []
const collect = (ns) => {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type) messages.push(nested)
    if (nested.nestedArray) collect(nested)
  }
}
collect(pbRoot)
const fullName = (type) => type.fullName.replace(/^\./, '')
const byName = new Map(messages.map((m) => [fullName(m), m]))
const definitionFor = (name) => definitions['io.' + name.replace(/^k8s\.io\./, 'k8s.')]

// 1. (apiVersion, kind) -> message, from the swagger's group-version-kind extension.
const kinds = {}
for (const [defName, def] of Object.entries(definitions)) {
  const message = 'k8s.io.' + defName.replace(/^io\.k8s\./, '')
  if (!byName.has(message)) continue
  for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
    const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version
    kinds[`${apiVersion}/${gvk.kind}`] = message
  }
}
// Kinds the swagger does not describe (discovery, admission reviews, older versions): every
// top-level object (ObjectMeta or ListMeta metadata) of a k8s.io/api package, in the group the
// swagger uses for that package, or the package's conventional group name.
const GROUP_OF_PACKAGE = { core: '', apidiscovery: 'apidiscovery.k8s.io', admission: 'admission.k8s.io', imagepolicy: 'imagepolicy.k8s.io' }
const groupOf = new Map()
for (const [key, message] of Object.entries(kinds)) {
  const pkg = message.split('.').slice(0, -1).join('.')
  const apiVersion = key.split('/').slice(0, -1).join('/')
  const version = pkg.split('.').at(-1)
  if (apiVersion === version || apiVersion.endsWith(`/${version}`)) groupOf.set(pkg, apiVersion.includes('/') ? apiVersion.split('/')[0] : '')
}
const objectMeta = new Set(['.k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', '.k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta'])
for (const type of messages) {
  const name = fullName(type)
  const match = /^k8s\.io\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.([A-Za-z0-9]+)$/.exec(name)
  if (!match) continue
  const [, short, version, kind] = match
  const metadata = type.fields.metadata
  const isObject = (metadata && objectMeta.has(metadata.resolvedType?.fullName)) || (short === 'admission' && kind === 'AdmissionReview')
  // Templates embed ObjectMeta but are parts of kinds, not kinds.
  if (!isObject || /TemplateSpec$/.test(kind) || kind === 'PersistentVolumeClaimTemplate') continue
  const group = groupOf.get(`k8s.io.api.${short}.${version}`) ?? GROUP_OF_PACKAGE[short]
  if (group === undefined) continue
  const key = `${group ? `${group}/${version}` : version}/${kind}`
  kinds[key] ??= name
}

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1.'
const anyGroup = {}
for (const kind of ['WatchEvent', 'Status', 'DeleteOptions', 'ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']) {
  anyGroup[kind] = meta + kind
}
// meta.k8s.io/v1 is the group of the server-side get/list shapes (PartialObjectMetadata) and options.
for (const kind of ['PartialObjectMetadata', 'PartialObjectMetadataList', 'Status', 'WatchEvent', 'DeleteOptions', 'ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'TableOptions']) {
  if (byName.has(meta + kind)) kinds[`meta.k8s.io/v1/${kind}`] = meta + kind
}
for (const kind of ['PartialObjectMetadata', 'PartialObjectMetadataList']) {
  const name = 'k8s.io.apimachinery.pkg.apis.meta.v1beta1.' + kind
  kinds[`meta.k8s.io/v1beta1/${kind}`] = byName.has(name) ? name : meta + kind
}
for (const kind of ['APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'Status']) kinds[`v1/${kind}`] = meta + kind

// 2. Where the JSON form differs from the proto field names.
const SCALARS = new Set(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'double', 'float', 'bytes'])
const json = {}
const unresolved = []
const jsonPropertiesOf = (message) => {
  const def = definitionFor(message)
  return def && def.properties ? new Set(Object.keys(def.properties)) : null
}
for (const type of messages) {
  const name = fullName(type)
  const props = jsonPropertiesOf(name)
  if (!props) continue
  const renames = {}
  for (const field of type.fieldsArray) {
    if (props.has(field.name)) continue
    const fieldType = field.resolvedType
    if (fieldType instanceof protobuf.Type && !field.repeated && !field.map) {
      // An embedded struct: its own fields appear in the parent's JSON.
      const inner = fieldType.fieldsArray.map((f) => f.name)
      if (inner.length > 0 && inner.some((f) => props.has(f))) {
        renames[field.name] = ''
        continue
      }
    }
    // A JSON name that is not a proto identifier ("$ref", "x-kubernetes-..."): same letters.
    const squash = (s) => s.replace(/[^A-Za-z0-9]/g, '').toLowerCase()
    const match = [...props].find((p) => squash(p) === squash(field.name))
    if (match) renames[field.name] = match
    else unresolved.push(`${name}.${field.name}`)
  }
  if (Object.keys(renames).length > 0) json[name] = renames
}

// 3. `+optional` scalars.
const optional = {}
for (const type of messages) {
  const fields = type.fieldsArray
    .filter((f) => !f.repeated && !f.map && SCALARS.has(f.type) && f.type !== 'bytes')
    .filter((f) => /(^|\n)\s*\+optional\b/.test(f.comment ?? ''))
    .map((f) => f.name)
  if (fields.length > 0) optional[fullName(type)] = fields
}

// 4. Named slice types.
const listWrappers = messages
  .filter((m) => m.fieldsArray.length === 1 && m.fieldsArray[0].name === 'items' && m.fieldsArray[0].repeated && m.fieldsArray[0].id === 1)
  // A struct that merely has one `items` field (DownwardAPIProjection) is an object in JSON.
  .filter((m) => !definitionFor(fullName(m))?.properties)
  .map(fullName)
  .sort()

// Drops options and comments of namespaces, types and fields; the names inside `nested` and
// `fields` are message and field names (a field may well be called "options").
const stripped = (node) => {
  const out = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'options' || key === 'comment') continue
    if (key === 'nested' || key === 'fields') out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, stripped(child)]))
    else out[key] = value
  }
  return out
}
const proto = stripped(pbRoot.toJSON({ keepComments: false }))

const sortObject = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
const artefact = {
  source: 'go-to-protobuf generated.proto + swagger.json (generated by scripts/gen-proto-descriptor.mjs)',
  kinds: sortObject(kinds),
  anyGroup,
  json: sortObject(json),
  optional: sortObject(optional),
  listWrappers,
  proto,
}
mkdirSync(dirname(output), { recursive: true })
writeFileSync(output, JSON.stringify(artefact) + '\n')
console.log(`wrote ${relative(root, output)}: ${messages.length} messages, ${Object.keys(kinds).length} kinds, ${JSON.stringify(artefact).length} bytes`)
if (unresolved.length > 0) console.log(`proto fields without a JSON property in swagger (kept under their proto name): ${unresolved.join(', ')}`)
