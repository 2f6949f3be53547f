#!/usr/bin/env node
/**
 * Generates src/server/api/generated/resources.ts, the per-kind data of the built-in kinds the
 * API serves, from the reference's OpenAPI v2 document: every resource of every group version
 * there (GA `v<N>`, served by default; beta and alpha ones, served when `--runtime-config` and
 * the feature gate the reference ties them to say so), with its scope and plural (from the paths and their
 * `x-kubernetes-group-version-kind`), its verbs (`x-kubernetes-action`, deletecollection
 * included) and its subresources (the `{name}/<sub>` paths the handlers implement).
 *
 * What swagger does not say is written here by hand, as the reference's: short names and
 * categories (each kind's REST storage), the order of the groups in discovery (the
 * aggregator's APIService priorities) and the minor release since which a GA resource is
 * served by default (for `--emulated-version`). Run:
 *   node scripts/gen-api-resources.mjs [/work/shared/openapi/swagger.json]
 */
import { writeFileSync } from 'node:fs'
import { readUpstreamSwagger } from './lib/upstream-openapi.mjs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'src/server/api/generated/resources.ts')

/**
 * Groups whose APIs are built elsewhere (the authentication and authorization review APIs)
 * and resources with a hand-written strategy (src/server/api/kinds/).
 */
const ELSEWHERE_GROUPS = new Set(['authentication.k8s.io', 'authorization.k8s.io'])
const HAND_WRITTEN = new Set(['/configmaps', '/namespaces', 'apiextensions.k8s.io/customresourcedefinitions'])

/** `<group>/<resource>`: [shortNames, categories], as the reference's REST storage declares them. */
const ALL = ['all']
const API_EXTENSIONS = ['api-extensions']
const NAMES = {
  '/componentstatuses': [['cs'], []],
  '/endpoints': [['ep'], []],
  '/events': [['ev'], []],
  '/limitranges': [['limits'], []],
  '/nodes': [['no'], []],
  '/persistentvolumeclaims': [['pvc'], []],
  '/persistentvolumes': [['pv'], []],
  '/pods': [['po'], ALL],
  '/replicationcontrollers': [['rc'], ALL],
  '/resourcequotas': [['quota'], []],
  '/serviceaccounts': [['sa'], []],
  '/services': [['svc'], ALL],
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': [[], API_EXTENSIONS],
  'admissionregistration.k8s.io/validatingwebhookconfigurations': [[], API_EXTENSIONS],
  'admissionregistration.k8s.io/validatingadmissionpolicies': [[], API_EXTENSIONS],
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': [[], API_EXTENSIONS],
  'admissionregistration.k8s.io/mutatingadmissionpolicies': [[], API_EXTENSIONS],
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': [[], API_EXTENSIONS],
  'apiregistration.k8s.io/apiservices': [[], API_EXTENSIONS],
  'apps/daemonsets': [['ds'], ALL],
  'apps/deployments': [['deploy'], ALL],
  'apps/replicasets': [['rs'], ALL],
  'apps/statefulsets': [['sts'], ALL],
  'autoscaling/horizontalpodautoscalers': [['hpa'], ALL],
  'batch/cronjobs': [['cj'], ALL],
  'batch/jobs': [[], ALL],
  'certificates.k8s.io/certificatesigningrequests': [['csr'], []],
  'events.k8s.io/events': [['ev'], []],
  'networking.k8s.io/ingresses': [['ing'], []],
  'networking.k8s.io/ipaddresses': [['ip'], []],
  'networking.k8s.io/networkpolicies': [['netpol'], []],
  'policy/poddisruptionbudgets': [['pdb'], []],
  'scheduling.k8s.io/priorityclasses': [['pc'], []],
  'storage.k8s.io/storageclasses': [['sc'], []],
  'storage.k8s.io/volumeattributesclasses': [['vac'], []],
}

/**
 * Discovery's group order: the aggregator's APIService group priorities, highest first (ties
 * by name). Within a group the preferred version first.
 */
const GROUP_ORDER = [
  '',
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'resource.k8s.io',
  'storagemigration.k8s.io',
]
const VERSION_ORDER = { autoscaling: ['v2', 'v1'] }

/**
 * The feature gate the reference's REST storage checks before serving a beta or alpha
 * resource (pkg/registry/<group>/rest/storage_<group>.go); a resource absent here needs none
 * (its feature is GA). A resource whose gate this server does not know is left out.
 */
const NON_GA_GATES = {
  'admissionregistration.k8s.io/mutatingadmissionpolicies': 'MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': 'MutatingAdmissionPolicy',
  'certificates.k8s.io/clustertrustbundles': 'ClusterTrustBundle',
  'certificates.k8s.io/podcertificaterequests': 'PodCertificateRequest',
  'coordination.k8s.io/leasecandidates': 'CoordinatedLeaderElection',
  'internal.apiserver.k8s.io/storageversions': 'StorageVersionAPI',
  'resource.k8s.io/devicetaintrules': 'DRADeviceTaintRules',
  'resource.k8s.io/resourcepoolstatusrequests': undefined,
  'scheduling.k8s.io/podgroups': 'GenericWorkload',
  'scheduling.k8s.io/workloads': 'GenericWorkload',
  'storagemigration.k8s.io/storageversionmigrations': 'StorageVersionMigrator',
}

/** Kube-aware version priority: GA before beta before alpha, higher numbers first. */
function versionPriority(v) {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v)
  const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1
  return stage * 1e6 + Number(m[1]) * 1e3 + Number(m[3] ?? 0)
}

/**
 * `<group>/<version>[/<resource>]`: the minor release of 1.x since which the reference serves
 * it by default (GA); absent means before 1.32, the oldest emulated version.
 */
const GA_SINCE = {
  'networking.k8s.io/v1/ipaddresses': 33,
  'networking.k8s.io/v1/servicecidrs': 33,
  'resource.k8s.io/v1': 34,
  'storage.k8s.io/v1/volumeattributesclasses': 34,
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicies': 36,
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings': 36,
  // Subresources: pods/resize came with in-place pod resize's beta.
  '/v1/pods/resize': 33,
}

/** The verbs the handlers implement, in the reference's discovery order. */
const HANDLED = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']
const ACTION_VERB = {
  get: 'get',
  list: 'list',
  post: 'create',
  put: 'update',
  patch: 'patch',
  delete: 'delete',
  deletecollection: 'deletecollection',
  watch: 'watch',
  watchlist: 'watch',
}
/** The subresources the handlers implement (swagger's `{name}/<sub>` paths). */
const SUBRESOURCES = ['approval', 'binding', 'ephemeralcontainers', 'eviction', 'resize', 'scale', 'status']

const { swagger } = readUpstreamSwagger()

/** [group, version, resource] of every GA resource path, in the document's order. */
const found = new Map()
for (const path of Object.keys(swagger.paths)) {
  const m = /^\/(?:api\/(v\d+)|apis\/([^/]+)\/(v\d+(?:(?:alpha|beta)\d+)?))\/(?:namespaces\/\{namespace\}\/)?([a-z0-9]+)$/.exec(path)
  if (!m) continue
  const group = m[2] ?? ''
  const version = m[1] ?? m[3]
  const resource = m[4]
  if (resource === 'watch' || ELSEWHERE_GROUPS.has(group) || HAND_WRITTEN.has(`${group}/${resource}`)) continue
  const ga = /^v\d+$/.test(version)
  if (!ga && `${group}/${resource}` in NON_GA_GATES && NON_GA_GATES[`${group}/${resource}`] === undefined) continue
  // `/api/v1/namespaces` itself is the namespaces resource, not a namespaced prefix.
  found.set(`${group}/${version}/${resource}`, { group, version, resource })
}

const groupRank = (g) => {
  const i = GROUP_ORDER.indexOf(g)
  if (i < 0) throw new Error(`group ${g} has no place in GROUP_ORDER`)
  return i
}
const versionRank = (g, v) => (VERSION_ORDER[g] ? VERSION_ORDER[g].indexOf(v) : -versionPriority(v))

const kinds = []
for (const { group, version, resource } of found.values()) {
  const base = group === '' ? `/api/${version}` : `/apis/${group}/${version}`
  const nsPath = `${base}/namespaces/{namespace}/${resource}`
  const clusterPath = `${base}/${resource}`
  const namespaced = nsPath in swagger.paths
  const collectionPath = namespaced ? nsPath : clusterPath
  const collection = swagger.paths[collectionPath]
  const named = swagger.paths[`${collectionPath}/{name}`] ?? {}
  let gvk
  const verbs = new Set()
  for (const op of [...Object.values(collection), ...Object.values(named)]) {
    if (typeof op !== 'object' || !op['x-kubernetes-group-version-kind']) continue
    gvk ??= op['x-kubernetes-group-version-kind']
    const verb = ACTION_VERB[op['x-kubernetes-action']]
    if (verb) verbs.add(verb)
  }
  if (verbs.has('list') && (swagger.paths[`${base}/watch/${resource}`] || swagger.paths[`${base}/watch/namespaces/{namespace}/${resource}`])) verbs.add('watch')
  if (!gvk || gvk.group !== group || gvk.version !== version) throw new Error(`no GVK for ${group}/${version} ${resource}`)
  const subresources = SUBRESOURCES.filter((sub) => `${collectionPath}/{name}/${sub}` in swagger.paths)
  const subSince = Object.fromEntries(subresources.filter((sub) => GA_SINCE[`${group}/${version}/${resource}/${sub}`]).map((sub) => [sub, GA_SINCE[`${group}/${version}/${resource}/${sub}`]]))
  const [shortNames, categories] = NAMES[`${group}/${resource}`] ?? [[], []]
  const since = GA_SINCE[`${group}/${version}/${resource}`] ?? GA_SINCE[`${group}/${version}`]
  const featureGate = /^v\d+$/.test(version) ? undefined : NON_GA_GATES[`${group}/${resource}`]
  kinds.push({
    group,
    version,
    kind: gvk.kind,
    resource,
    singular: gvk.kind.toLowerCase(),
    namespaced,
    shortNames,
    verbs: HANDLED.filter((v) => verbs.has(v)),
    subresources,
    ...(categories.length > 0 ? { categories } : {}),
    ...(since ? { since } : {}),
    ...(Object.keys(subSince).length > 0 ? { subresourcesSince: subSince } : {}),
    ...(featureGate ? { featureGate } : {}),
  })
}
kinds.sort((a, b) => groupRank(a.group) - groupRank(b.group) || versionRank(a.group, a.version) - versionRank(b.group, b.version))

const lines = kinds.map((k) => `  ${JSON.stringify(k)},`)
writeFileSync(
  out,
  `// Generated by scripts/gen-api-resources.mjs from the reference's swagger.json. Do not edit.\n` +
    `export interface ResourceInfo {\n  group: string\n  version: string\n  kind: string\n  resource: string\n  singular: string\n  namespaced: boolean\n  shortNames: string[]\n  verbs: string[]\n` +
    `  /** Served subresources: \`status\`, \`scale\`, \`binding\`, \`eviction\`, ... */\n  subresources: string[]\n  categories?: string[]\n` +
    `  /** The minor release of 1.x since which the reference serves it by default (absent: every emulated version). */\n  since?: number\n` +
    `  /** The same for a subresource added later than its resource. */\n  subresourcesSince?: Record<string, number>\n` +
    `  /** A beta or alpha resource's feature gate, which must be on (besides --runtime-config) for it to be served. */\n  featureGate?: string\n}\n\n` +
    `/** Discovery's group order (the reference's APIService group priorities, highest first). */\n` +
    `export const GROUP_ORDER: readonly string[] = ${JSON.stringify(GROUP_ORDER)}\n\n` +
    `export const RESOURCES: readonly ResourceInfo[] = [\n${lines.join('\n')}\n]\n`,
)
console.log(`wrote ${kinds.length} kinds to ${out}`)
