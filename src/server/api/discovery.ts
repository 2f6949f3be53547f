/**
 * Legacy discovery, built from the strategies: `/api` (APIVersions), `/api/v1` and
 * `/apis/{g}/{v}` (APIResourceList), `/apis` (APIGroupList). kubectl asks for the aggregated
 * form with a plain JSON fallback and reads the answer's Content-Type, so plain JSON works.
 */
import type { Request } from '../http/types.js'
import type { Strategy } from './registry/strategy.js'
import { groupPriority } from './discovery-group-priority.js'

export function groupVersion(s: Pick<Strategy, 'group' | 'version'>): string {
  return s.group === '' ? s.version : `${s.group}/${s.version}`
}

export function apiVersions(req: Request): Record<string, unknown> {
  const host = (req.headers[':authority'] ?? req.headers.host ?? '') as string
  const address = host || `${req.socket?.localAddress ?? ''}:${req.socket?.localPort ?? ''}`
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }] }
}

/**
 * The served non-core groups in the reference's order (its group priorities, then the order of
 * the kinds), each with its versions (first preferred).
 */
function servedGroups(kinds: readonly Strategy[]): Map<string, string[]> {
  const groups = new Map<string, string[]>()
  const rank = (k: Strategy) => groupPriority(k.group, k.customResource === true)
  const ordered = kinds.map((k, i) => ({ k, i })).sort((a, b) => rank(b.k) - rank(a.k) || a.i - b.i)
  for (const { k } of ordered) {
    if (k.group === '') continue
    const versions = groups.get(k.group) ?? []
    if (!versions.includes(k.version)) versions.push(k.version)
    groups.set(k.group, versions)
  }
  return groups
}

function apiGroupOf(name: string, versions: readonly string[]): Record<string, unknown> {
  return {
    name,
    versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${versions[0]!}`, version: versions[0]! },
  }
}

export function apiGroupList(kinds: readonly Strategy[]): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...servedGroups(kinds)].map(([name, versions]) => apiGroupOf(name, versions)),
  }
}

/** `/apis/<group>`: the APIGroup, or undefined when the group is not served. */
export function apiGroup(kinds: readonly Strategy[], group: string): Record<string, unknown> | undefined {
  const versions = servedGroups(kinds).get(group)
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(group, versions) } : undefined
}

/** The verbs every served subresource has. */
export const SUBRESOURCE_VERBS = ['get', 'patch', 'update']

/** A namespace's finalize subresource is written with PUT only; a token, a binding or an eviction is created. */
export function subresourceVerbs(sub: string): string[] {
  if (sub === 'finalize') return ['update']
  if (sub === 'token' || sub === 'binding' || sub === 'eviction') return ['create']
  // The connect subresources: their methods as verbs (ConnectMethods: GET and POST; the proxies all of them).
  if (sub === 'log') return ['get']
  if (sub === 'attach' || sub === 'exec' || sub === 'portforward') return ['create', 'get']
  if (sub === 'proxy') return ['create', 'delete', 'get', 'patch', 'update']
  return SUBRESOURCE_VERBS
}

/** The kind a subresource takes and answers with, when it is not the resource's own. */
export const SUBRESOURCE_KINDS: Record<string, { group: string; version: string; kind: string }> = {
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
  token: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction' },
  binding: { group: '', version: 'v1', kind: 'Binding' },
  attach: { group: '', version: 'v1', kind: 'PodAttachOptions' },
  exec: { group: '', version: 'v1', kind: 'PodExecOptions' },
  portforward: { group: '', version: 'v1', kind: 'PodPortForwardOptions' },
}

/** The options kind of each resource's proxy (NodeProxyOptions ...). */
const PROXY_KINDS: Record<string, string> = { pods: 'PodProxyOptions', nodes: 'NodeProxyOptions', services: 'ServiceProxyOptions' }

/** The kind a subresource takes and answers when it is not the resource's own. */
export function subresourceKind(k: Strategy, sub: string): { group: string; version: string; kind: string } | undefined {
  if (sub === 'proxy' && PROXY_KINDS[k.resource]) return { group: '', version: 'v1', kind: PROXY_KINDS[k.resource]! }
  return SUBRESOURCE_KINDS[sub]
}

/** `<plural>/<sub>`: status is the kind itself, scale the autoscaling/v1 Scale, eviction a policy/v1 Eviction. */
function subresourceEntry(k: Strategy, sub: string): Record<string, unknown> {
  const other = subresourceKind(k, sub)
  return {
    name: `${k.resource}/${sub}`,
    singularName: '',
    namespaced: k.namespaced,
    // A core kind (Binding) is named without group and version, as the reference lists it.
    ...(other ? { ...(other.group ? { group: other.group, version: other.version } : {}), kind: other.kind } : { kind: k.kind }),
    verbs: subresourceVerbs(sub),
  }
}

/** The APIResourceList of one group version, or undefined when nothing is served there. */
export function apiResourceList(kinds: readonly Strategy[], group: string, version: string): Record<string, unknown> | undefined {
  const served = kinds.filter((k) => k.group === group && k.version === version).sort((a, b) => (a.resource < b.resource ? -1 : 1))
  if (served.length === 0) return undefined
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources: served.flatMap((k) => [
      {
        name: k.resource,
        singularName: k.singular,
        namespaced: k.namespaced,
        kind: k.kind,
        verbs: k.verbs,
        ...(k.shortNames.length > 0 ? { shortNames: k.shortNames } : {}),
        ...(k.categories && k.categories.length > 0 ? { categories: k.categories } : {}),
      },
      ...[...(k.subresources ?? [])].sort().map((sub) => subresourceEntry(k, sub)),
    ]),
  }
}
