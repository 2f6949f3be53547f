#!/usr/bin/env node
// Generates src/core/apply/generated/apply-schema.json from a Kubernetes OpenAPI v2 document
// (default: ../shared/openapi/swagger.json relative to the project root; pass a path to override).
//
// The artefact holds what server-side apply needs to tell fields, list items and map entries apart:
//   gvk:  { "<apiVersion>/<Kind>": "<def>" }   every kind the document names
//   defs: { "<def>": { f: { "<field>": <type> }, a?: 1, r?: [...], v?: [...] } }   structs (a: 1 = atomic
//         struct, x-kubernetes-map-type; r: required list and map fields, v: struct fields held by value:
//         Go serializes both even when empty, so they never "appear" in a comparison)
// where <type> is
//   0                                scalar (also string-like structs: Quantity, Time, IntOrString)
//   "d"                              untyped: deduced from the value (RawExtension, JSON)
//   "<def>"                          a struct, a key of defs
//   ["l", <type>, "a"|"s"|"m", keys?, keyDefaults?]   a list: atomic, set, or map keyed by `keys`
//   ["m", <type>, "a"?]              a map (additionalProperties); "a" when atomic
//   ["a", "<def>"]                   a struct made atomic where it is used (x-kubernetes-map-type on the field)
// The list type is x-kubernetes-list-type (with x-kubernetes-list-map-keys); without it, the patch
// strategy as the reference's type converter reads it: merge with a merge key is a map keyed by
// it, merge without one a set, anything else atomic.
import { writeFileSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { PROJECT_ROOT as root, readUpstreamSwagger } from './lib/upstream-openapi.mjs'

const output = resolve(root, 'src/core/apply/generated/apply-schema.json')

const { swagger } = readUpstreamSwagger()
const all = swagger.definitions ?? {}

const shorten = (name) =>
  name
    .replace(/^io\.k8s\.api\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\.apis\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\./, '')
    .replace(/^io\.k8s\.apiextensions-apiserver\.pkg\.apis\./, 'apiextensions.')
    .replace(/^io\.k8s\.kube-aggregator\.pkg\.apis\./, 'aggregator.')
const refName = (ref) => ref.replace(/^#\/definitions\//, '')

const defs = {}
const queue = []
// Struct fields Go holds by value (not pointers) beyond metadata, spec, status and the required
// ones: OpenAPI does not tell pointers from values, so the common ones of k8s.io/api are named.
const VALUE_FIELDS = {
  'apps.v1.DeploymentSpec': ['strategy'],
  'apps.v1.DaemonSetSpec': ['template', 'updateStrategy'],
  'apps.v1.ReplicaSetSpec': ['template'],
  'apps.v1.StatefulSetSpec': ['template', 'updateStrategy'],
  'batch.v1.JobSpec': ['template'],
  'core.v1.Container': ['resources'],
  'core.v1.EphemeralContainer': ['resources'],
  'core.v1.PersistentVolumeClaimSpec': ['resources'],
  'core.v1.PodTemplate': ['template'],
  'core.v1.Event': ['source'],
  'autoscaling.v1.HorizontalPodAutoscalerSpec': ['scaleTargetRef'],
  'autoscaling.v2.HorizontalPodAutoscalerSpec': ['scaleTargetRef'],
  'apiextensions.v1.CustomResourceDefinitionSpec': ['names'],
  'apiextensions.v1.CustomResourceDefinitionStatus': ['acceptedNames'],
  'networking.v1.NetworkPolicySpec': ['podSelector'],
}
// Defaults of list-map keys that OpenAPI v2 does not carry (v3 does): every port's protocol is TCP.
const KEY_DEFAULTS = { protocol: 'TCP' }

function refType(name) {
  const def = all[name]
  if (!def) return 'd'
  if (!def.properties) return def.type === 'object' || def.type === undefined ? 'd' : 0
  if (!(name in defs)) {
    defs[name] = null
    queue.push(name)
  }
  return shorten(name)
}

function type(schema) {
  if (!schema) return 'd'
  if (schema.$ref) return refType(refName(schema.$ref))
  if (schema.allOf?.length === 1) return type(schema.allOf[0])
  if (schema.type === 'array') {
    const item = type(schema.items)
    let listType = schema['x-kubernetes-list-type']
    let keys = schema['x-kubernetes-list-map-keys']
    if (!listType) {
      const strategies = String(schema['x-kubernetes-patch-strategy'] ?? '').split(',')
      const mergeKey = schema['x-kubernetes-patch-merge-key']
      if (strategies.includes('merge')) {
        listType = mergeKey ? 'map' : 'set'
        if (mergeKey) keys = [mergeKey]
      } else listType = 'atomic'
    }
    if (listType === 'map') {
      const out = ['l', item, 'm', keys ?? []]
      // A key with a default in the item's schema may be left out of an applied item.
      const itemDef = schema.items?.$ref ? all[refName(schema.items.$ref)] : undefined
      const defaults = {}
      for (const k of keys ?? []) {
        const d = itemDef?.properties?.[k]?.default ?? KEY_DEFAULTS[k]
        if (d !== undefined && itemDef?.properties?.[k]) defaults[k] = d
      }
      if (Object.keys(defaults).length > 0) out.push(defaults)
      return out
    }
    return ['l', item, listType === 'set' ? 's' : 'a']
  }
  if (schema.type === 'object' && schema.additionalProperties) {
    const elem = schema.additionalProperties === true ? 'd' : type(schema.additionalProperties)
    return schema['x-kubernetes-map-type'] === 'atomic' ? ['m', elem, 'a'] : ['m', elem]
  }
  if (schema.type === 'object') return 'd'
  return 0
}

const gvk = {}
for (const [name, def] of Object.entries(all)) {
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
    if (name.endsWith('List') || !def.properties?.metadata) continue
    const apiVersion = g.group ? `${g.group}/${g.version}` : g.version
    const t = refType(name)
    if (typeof t === 'string' && t !== 'd') gvk[`${apiVersion}/${g.kind}`] = t
  }
}

while (queue.length) {
  const name = queue.shift()
  const def = all[name]
  const f = {}
  for (const key of Object.keys(def.properties).sort()) {
    let t = type(def.properties[key])
    // An atomic map-type on a struct field ($ref) makes that field atomic too.
    if (def.properties[key]['x-kubernetes-map-type'] === 'atomic' && typeof t === 'string' && t !== 'd') t = ['a', t]
    f[key] = t
  }
  const entry = { f }
  if (def['x-kubernetes-map-type'] === 'atomic') entry.a = 1
  // Required fields have no omitempty in Go: an empty list or map there is serialized (null).
  const required = (def.required ?? []).filter((k) => Array.isArray(f[k]))
  if (required.length > 0) entry.r = required.sort()
  const isStruct = (t) => typeof t === 'string' && t !== 'd'
  const byValue = Object.keys(f).filter(
    (k) => isStruct(f[k]) && (['metadata', 'spec', 'status'].includes(k) || (def.required ?? []).includes(k) || (VALUE_FIELDS[shorten(name)] ?? []).includes(k)),
  )
  if (byValue.length > 0) entry.v = byValue.sort()
  defs[name] = entry
}

const shortDefs = {}
for (const name of Object.keys(defs).sort()) shortDefs[shorten(name)] = defs[name]
const sortedGvk = Object.fromEntries(Object.entries(gvk).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
const artefact = { source: 'swagger.json (generated by scripts/gen-apply-schema.mjs)', gvk: sortedGvk, defs: shortDefs }
mkdirSync(dirname(output), { recursive: true })
const text = JSON.stringify(artefact) + '\n'
writeFileSync(output, text)
console.log(`wrote ${output}: ${Object.keys(sortedGvk).length} kinds, ${Object.keys(shortDefs).length} definitions, ${text.length} bytes`)
