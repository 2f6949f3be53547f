/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): `/api` and `/apis` answer an
 * APIGroupDiscoveryList when the Accept header asks for one, as kubectl 1.27+ does; otherwise the
 * legacy documents are served. Like the reference, the answer carries an ETag (the SHA-512 of the
 * list's JSON), `Vary: Accept` and `Cache-Control: public`, and a matching If-None-Match gets 304.
 */
import { createHash } from 'node:crypto'
import type { Request, Response } from '../http/types.js'
import { parseMediaRanges } from './negotiation.js'
import type { Strategy } from './registry/strategy.js'
import { subresourceKind, subresourceVerbs } from './discovery.js'
import { groupPriority } from './discovery-group-priority.js'

export type DiscoveryVersion = 'v2' | 'v2beta1'

const DISCOVERY_GROUP = 'apidiscovery.k8s.io'
const DISCOVERY_KIND = 'APIGroupDiscoveryList'

/**
 * The aggregated version the Accept header asks for, or undefined for the legacy documents.
 * The first clause the discovery endpoint can serve wins: a clause asking another `as` (a Table)
 * is skipped, a plain JSON clause means legacy.
 */
export function aggregatedDiscoveryVersion(accept: string | undefined): DiscoveryVersion | undefined {
  for (const r of parseMediaRanges(accept)) {
    const jsonish = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*'
    if (!jsonish) continue
    if (r.params.as === undefined && r.params.g === undefined && r.params.v === undefined) return undefined
    if (r.params.as === DISCOVERY_KIND && r.params.g === DISCOVERY_GROUP && (r.params.v === 'v2' || r.params.v === 'v2beta1')) return r.params.v
  }
  return undefined
}

/** apimachinery's CompareKubeAwareVersionStrings as a sort key: GA, then beta, then alpha, newest first. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v)
    if (!m) return undefined
    return { major: Number(m[1]), stability: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) }
  }
  const pa = parse(a)
  const pb = parse(b)
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0
  if (!pa) return 1
  if (!pb) return -1
  if (pa.stability !== pb.stability) return pb.stability - pa.stability
  if (pa.major !== pb.major) return pb.major - pa.major
  return pb.minor - pa.minor
}

function resourceDiscovery(k: Strategy): Record<string, unknown> {
  const responseKind = { group: k.group, version: k.version, kind: k.kind }
  // Sorted, as the reference's resource list (`deployments/scale` before `deployments/status`).
  const subresources = [...(k.subresources ?? [])].sort().map((sub) => ({
    subresource: sub,
    responseKind: subresourceKind(k, sub) ?? responseKind,
    verbs: subresourceVerbs(sub),
  }))
  return {
    resource: k.resource,
    responseKind,
    scope: k.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: k.singular,
    verbs: k.verbs,
    ...(k.shortNames.length > 0 ? { shortNames: k.shortNames } : {}),
    ...(k.categories && k.categories.length > 0 ? { categories: k.categories } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  }
}

/** The groups of `kinds` as APIGroupDiscovery items, ordered as the reference orders them. */
export function groupDiscoveries(kinds: readonly Strategy[]): Record<string, unknown>[] {
  const groups = new Map<string, Map<string, Strategy[]>>()
  const custom = new Set<string>()
  for (const k of kinds) {
    const versions = groups.get(k.group) ?? new Map<string, Strategy[]>()
    versions.set(k.version, [...(versions.get(k.version) ?? []), k])
    groups.set(k.group, versions)
    if (k.customResource) custom.add(k.group)
  }
  const priority = (g: string) => groupPriority(g, custom.has(g))
  const names = [...groups.keys()].sort((a, b) => priority(b) - priority(a) || (a < b ? -1 : a > b ? 1 : 0))
  return names.map((name) => ({
    metadata: { name, creationTimestamp: null },
    versions: [...groups.get(name)!.keys()].sort(compareKubeAwareVersions).map((version) => ({
      version,
      resources: groups
        .get(name)!
        .get(version)!
        .slice()
        .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))
        .map(resourceDiscovery),
      freshness: 'Current',
    })),
  }))
}

/** The list as the reference hashes it (no type meta), and its ETag. */
export function aggregatedDiscovery(kinds: readonly Strategy[]): { list: Record<string, unknown>; etag: string } {
  const list = { metadata: {}, items: groupDiscoveries(kinds) }
  const etag = createHash('sha512').update(JSON.stringify(list)).digest('hex').toUpperCase()
  return { list, etag }
}

export function aggregatedContentType(version: DiscoveryVersion): string {
  return `application/json;g=${DISCOVERY_GROUP};v=${version};as=${DISCOVERY_KIND}`
}

/**
 * The documents built lately, by what they are built from: a built-in kind by its identity
 * (the strategies are fixed for the server's life), a custom resource by the fields discovery
 * shows. Requests then cost a lookup, not a rebuild and a SHA-512, whatever the kind count.
 */
const builtinIds = new WeakMap<Strategy, number>()
let nextBuiltinId = 0
const recent = new Map<string, { list: Record<string, unknown>; etag: string; bodies: Map<DiscoveryVersion, string> }>()
const RECENT_LIMIT = 8

function signature(kinds: readonly Strategy[]): string {
  return kinds
    .map((k) => {
      if (!k.customResource) {
        let id = builtinIds.get(k)
        if (id === undefined) builtinIds.set(k, (id = nextBuiltinId++))
        return String(id)
      }
      return JSON.stringify([k.group, k.version, k.resource, k.singular, k.kind, k.namespaced, k.verbs, k.shortNames, k.categories, k.subresources])
    })
    .join('|')
}

function cachedDiscovery(kinds: readonly Strategy[]): { list: Record<string, unknown>; etag: string; bodies: Map<DiscoveryVersion, string> } {
  const key = signature(kinds)
  let entry = recent.get(key)
  if (!entry) {
    entry = { ...aggregatedDiscovery(kinds), bodies: new Map() }
    if (recent.size >= RECENT_LIMIT) recent.delete(recent.keys().next().value!)
    recent.set(key, entry)
  }
  return entry
}

/** Writes the list for `version`, or 304 when the client's If-None-Match is its ETag. */
export function writeAggregatedDiscovery(req: Request, res: Response, kinds: readonly Strategy[], version: DiscoveryVersion): void {
  const cached = cachedDiscovery(kinds)
  const { list, etag } = cached
  const quoted = JSON.stringify(etag)
  res.setHeader('ETag', quoted)
  res.setHeader('Vary', 'Accept')
  res.setHeader('Cache-Control', 'public')
  if (req.headers['if-none-match'] === quoted) {
    res.statusCode = 304
    res.end()
    return
  }
  res.setHeader('Content-Type', aggregatedContentType(version))
  res.statusCode = 200
  let text = cached.bodies.get(version)
  if (text === undefined) {
    text = `${JSON.stringify({ kind: DISCOVERY_KIND, apiVersion: `${DISCOVERY_GROUP}/${version}`, ...list })}\n`
    cached.bodies.set(version, text)
  }
  res.end(text)
}
