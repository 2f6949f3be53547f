/**
 * The other objects a new cluster starts with: the system priority classes, the system
 * namespaces, the authentication-info config map and the APIService registrations of the
 * built-in group versions.
 */
import type { BootstrapObject } from './objects.js'
import { apiServicePriority } from './apiservice-priorities.js'
import { defaultKeyPrefix } from '../store/overrides.js'

/** Where APIServices are stored: the store's layout for apiregistration.k8s.io's apiservices. */
export const API_SERVICES_PREFIX = defaultKeyPrefix('apiregistration.k8s.io', 'apiservices')

export function systemPriorityClasses(): BootstrapObject[] {
  return [
    ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
    ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
  ].map(([name, value, description]) => ({
    key: `/priorityclasses/${name}`,
    object: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description, preemptionPolicy: 'PreemptLowerPriority' },
  }))
}

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease']

export function systemNamespaces(): BootstrapObject[] {
  return SYSTEM_NAMESPACES.map((name) => ({
    key: `/namespaces/${name}`,
    object: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    },
  }))
}

/** The `default` service account of each system namespace, as the controller manager creates it. */
export function systemServiceAccounts(): BootstrapObject[] {
  return SYSTEM_NAMESPACES.map((namespace) => ({
    key: `/serviceaccounts/${namespace}/default`,
    object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
  }))
}

/** What the extension-apiserver-authentication config map publishes about the front proxy. */
export interface RequestHeaderInfo {
  caPem: string
  allowedNames: string[]
  usernameHeaders: string[]
  uidHeaders: string[]
  groupHeaders: string[]
  extraHeaderPrefixes: string[]
}

/**
 * kube-system/extension-apiserver-authentication, as the reference's cluster authentication
 * trust controller writes it: the client CA bundle and, with a front proxy, its CA and its
 * headers (each list a JSON array of strings), for aggregated API servers to trust.
 */
export function authenticationInfo(clientCaPem?: string, requestHeader?: RequestHeaderInfo): BootstrapObject[] {
  const data: Record<string, string> = {}
  if (clientCaPem) data['client-ca-file'] = clientCaPem
  if (requestHeader) {
    data['requestheader-client-ca-file'] = requestHeader.caPem
    data['requestheader-allowed-names'] = JSON.stringify(requestHeader.allowedNames)
    data['requestheader-username-headers'] = JSON.stringify(requestHeader.usernameHeaders)
    data['requestheader-uid-headers'] = JSON.stringify(requestHeader.uidHeaders)
    data['requestheader-group-headers'] = JSON.stringify(requestHeader.groupHeaders)
    data['requestheader-extra-headers-prefix'] = JSON.stringify(requestHeader.extraHeaderPrefixes)
  }
  return [
    {
      key: '/configmaps/kube-system/extension-apiserver-authentication',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
        data,
      },
    },
  ]
}

/**
 * One local APIService per served built-in group version, as the reference's autoregistration
 * controller creates them (cmd/kube-apiserver/app/aggregator.go makeAPIService, named
 * `<version>.<group>`, `v1.` for the core group; labelled as synced on start) with the status its
 * strategy gives a local one on create (PrepareForCreate: Available, reason Local).
 */
export function builtInApiServices(served: ReadonlyArray<[group: string, version: string]>, now = new Date()): BootstrapObject[] {
  const lastTransitionTime = now.toISOString().replace(/\.\d{3}Z$/, 'Z')
  return served.map(([group, version]) => {
    const name = `${version}.${group}`
    const priority = apiServicePriority(group, version)
    return {
      key: `${API_SERVICES_PREFIX}${name}`,
      object: {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
        spec: { service: null, group, version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
        status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime, reason: 'Local', message: 'Local APIServices are always available' }] },
      },
    }
  })
}

/** The group versions to register: those of the served built-in kinds (after --runtime-config), in first-seen order. */
export function servedGroupVersions(kinds: ReadonlyArray<{ group: string; version: string }>): Array<[string, string]> {
  const seen = new Map<string, [string, string]>()
  for (const k of kinds) seen.set(`${k.group}/${k.version}`, [k.group, k.version])
  return [...seen.values()]
}
