#!/usr/bin/env node
// Generates src/core/patch/generated/patch-meta.json from a Kubernetes OpenAPI v2 document
// (default: ../shared/openapi/swagger.json relative to the project root; pass a path to override).
//
// The artefact holds only what strategic merge patch needs:
//   gvk:  { "<apiVersion>/<Kind>": "<def>" }         built-in kinds kubectl knows locally
//   serverGvk: { "<apiVersion>/<Kind>": "<def>" }    kinds built into the server but not into
//                                                    kubectl's local scheme (CRDs, APIServices)
//   defs: { "<def>": { "<jsonField>": <field> } }     struct definitions reachable from them
// where <field> is
//   0                       a scalar (string, number, bool)
//   "m"                     a Go map (additionalProperties)
//   "<def>"                 a struct (a key of defs, or a scalar-like struct without fields, e.g. Quantity)
//   [<item>, <strategy>, <mergeKey>]  a slice; <item> is 0 | "m" | "<def>" | [..] (nested slice),
//                           strategy / mergeKey are "" when absent (trailing "" are dropped)
// Definition names are shortened: "io.k8s.api.apps.v1.Deployment" -> "apps.v1.Deployment",
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" -> "meta.v1.ObjectMeta", other
// "io.k8s.apimachinery.pkg.X" -> "X". The Go type name is the last dotted segment.
import { writeFileSync, mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { PROJECT_ROOT as root, readUpstreamSwagger } from './lib/upstream-openapi.mjs'

const output = resolve(root, 'src/core/patch/generated/patch-meta.json')

const { swagger } = readUpstreamSwagger()
const all = swagger.definitions ?? {}

const shorten = (name) =>
  name
    .replace(/^io\.k8s\.api\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\.apis\./, '')
    .replace(/^io\.k8s\.apimachinery\.pkg\./, '')
    .replace(/^io\.k8s\.apiextensions-apiserver\.pkg\.apis\./, '')
    .replace(/^io\.k8s\.kube-aggregator\.pkg\.apis\./, '')
const refName = (ref) => ref.replace(/^#\/definitions\//, '')

// kubectl's local scheme holds the k8s.io/api groups only: CRDs (apiextensions) and APIService
// (kube-aggregator) are "not supported locally".
const isBuiltInDef = (name) => name.startsWith('io.k8s.api.')
// The server itself applies strategic merge patches to them as to any built-in type (the
// reference's apiextensions-apiserver and kube-aggregator have typed Go structs).
const isServerOnlyDef = (name) => name.startsWith('io.k8s.apiextensions-apiserver.') || name.startsWith('io.k8s.kube-aggregator.')

const defs = {}
const queue = []
const want = (name) => {
  if (!(name in defs) && all[name]) {
    defs[name] = null
    queue.push(name)
  }
}

function field(schema) {
  if (!schema) return 0
  if (schema.$ref) {
    const n = refName(schema.$ref)
    want(n)
    return shorten(n)
  }
  if (schema.type === 'array') {
    const out = [field(schema.items), schema['x-kubernetes-patch-strategy'] ?? '', schema['x-kubernetes-patch-merge-key'] ?? '']
    while (out.length > 1 && out[out.length - 1] === '') out.pop()
    return out
  }
  if (schema.type === 'object' && schema.additionalProperties) return 'm'
  if (schema.type === 'object' && schema.properties) return 'm' // anonymous object: treat like a map
  return 0
}

const gvk = {}
for (const [name, def] of Object.entries(all)) {
  if (!isBuiltInDef(name)) continue
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
    const apiVersion = g.group ? `${g.group}/${g.version}` : g.version
    gvk[`${apiVersion}/${g.kind}`] = shorten(name)
    want(name)
  }
}

const serverGvk = {}
for (const [name, def] of Object.entries(all)) {
  if (!isServerOnlyDef(name)) continue
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
    serverGvk[`${g.group}/${g.version}/${g.kind}`] = shorten(name)
    want(name)
  }
}

while (queue.length) {
  const name = queue.shift()
  const props = all[name].properties ?? {}
  const out = {}
  for (const key of Object.keys(props).sort()) {
    const p = props[key]
    let f = field(p)
    // strategy / merge key may sit on a $ref'd struct field (e.g. Deployment spec.strategy: retainKeys)
    if (!Array.isArray(f) && p['x-kubernetes-patch-strategy']) f = { t: f, s: p['x-kubernetes-patch-strategy'] }
    out[key] = f
  }
  defs[name] = out
}

// Kinds kubectl's scheme still knows under older group versions that a current server no longer
// serves: approximate them with the served version's definitions (same patch tags in k8s.io/api).
const LEGACY = {
  'apps/v1beta1': ['apps/v1', ['Deployment', 'StatefulSet', 'ControllerRevision']],
  'apps/v1beta2': ['apps/v1', ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ControllerRevision']],
  'extensions/v1beta1': ['apps/v1', ['Deployment', 'DaemonSet', 'ReplicaSet']],
  'batch/v1beta1': ['batch/v1', ['CronJob']],
  'policy/v1beta1': ['policy/v1', ['PodDisruptionBudget']],
  'autoscaling/v2beta1': ['autoscaling/v2', ['HorizontalPodAutoscaler']],
  'autoscaling/v2beta2': ['autoscaling/v2', ['HorizontalPodAutoscaler']],
  'networking.k8s.io/v1beta1': ['networking.k8s.io/v1', ['Ingress', 'IngressClass']],
  'rbac.authorization.k8s.io/v1beta1': ['rbac.authorization.k8s.io/v1', ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']],
  'storage.k8s.io/v1beta1': ['storage.k8s.io/v1', ['StorageClass', 'CSIDriver', 'CSINode', 'VolumeAttachment']],
  'scheduling.k8s.io/v1beta1': ['scheduling.k8s.io/v1', ['PriorityClass']],
  'events.k8s.io/v1beta1': ['events.k8s.io/v1', ['Event']],
  'discovery.k8s.io/v1beta1': ['discovery.k8s.io/v1', ['EndpointSlice']],
  'coordination.k8s.io/v1beta1': ['coordination.k8s.io/v1', ['Lease']],
  'node.k8s.io/v1beta1': ['node.k8s.io/v1', ['RuntimeClass']],
}
for (const [legacy, [current, kinds]] of Object.entries(LEGACY)) {
  for (const k of kinds) {
    const target = gvk[`${current}/${k}`]
    if (target && !gvk[`${legacy}/${k}`]) gvk[`${legacy}/${k}`] = target
  }
}

const shortDefs = {}
for (const name of Object.keys(defs).sort()) {
  const props = defs[name]
  if (Object.keys(props).length === 0) continue // scalar-like struct (Quantity, Time, RawExtension...)
  shortDefs[shorten(name)] = props
}
const sortedGvk = Object.fromEntries(Object.entries(gvk).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
const sortedServerGvk = Object.fromEntries(Object.entries(serverGvk).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
const artefact = { source: 'swagger.json x-kubernetes-patch-* (generated by scripts/gen-patch-meta.mjs)', gvk: sortedGvk, serverGvk: sortedServerGvk, defs: shortDefs }
mkdirSync(dirname(output), { recursive: true })
const text = JSON.stringify(artefact) + '\n'
writeFileSync(output, text)
console.log(`wrote ${output}: ${Object.keys(sortedGvk).length} kinds, ${Object.keys(shortDefs).length} definitions, ${text.length} bytes`)
