/**
 * The functions kwok's stage templates call (pkg/utils/gotpl/funcs.go and the node and pod
 * controllers' own): Quote, Now, YAML, Version, NodeConditions, and the node's and pods'
 * addresses (NodeIP, NodeName, NodePort, NodeIPWith, NodeIPsWith, PodIPWith, PodIPsWith).
 */
import { jsYaml } from '../../core/util/yaml.js'
import type { FuncMap } from './go-template.js'

/** kwok's nodeConditions: a simulated node's conditions when it is healthy. */
export const NODE_CONDITIONS = [
  { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  { type: 'MemoryPressure', status: 'False', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', status: 'False', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', status: 'False', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
  { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'RouteController created a route' },
]

/** kwok's Quote: JSON for a string, otherwise the JSON text quoted. */
export function quote(s: unknown): string {
  const data = JSON.stringify(s ?? null)
  if (data === undefined || data.length === 0) return '""'
  return data.startsWith('"') ? data : JSON.stringify(data)
}

/** kwok's YAML: sorted keys; with an indent, every line (after a leading newline) padded by 2 × indent spaces. */
export function yaml(s: unknown, indent?: unknown): string {
  const data = jsYaml().dump(s ?? null, { sortKeys: true, lineWidth: -1 })
  const pad = typeof indent === 'number' && indent > 0 ? ' '.repeat(indent * 2) : ''
  return pad ? `\n${data}`.replaceAll('\n', `\n${pad}`) : data
}

/** Times as the API writes them (RFC 3339, seconds). */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

export interface Addresses {
  now(): number
  version: string
  nodeIP(nodeName: string): string
  nodePort(nodeName: string): number
  /** A pod's IP on its node (the node's IP for a host-network pod). */
  podIP(nodeName: string, hostNetwork: boolean, uid: string, name: string, namespace: string): string
}

/** The functions for a template rendered for the object `obj` (a node's name is its own; a pod's is its spec.nodeName). */
export function templateFuncs(a: Addresses, nodeName: string): FuncMap {
  return {
    Quote: quote,
    // sprig's dict: key, value pairs.
    dict: (...kv) => Object.fromEntries(Array.from({ length: Math.floor(kv.length / 2) }, (_, i) => [String(kv[2 * i]), kv[2 * i + 1]])),
    Now: () => rfc3339(a.now()),
    YAML: yaml,
    Version: () => a.version,
    NodeConditions: () => NODE_CONDITIONS.map((c) => ({ ...c })),
    NodeName: () => nodeName,
    NodeIP: () => a.nodeIP(nodeName),
    NodePort: () => a.nodePort(nodeName),
    NodeIPWith: (node) => a.nodeIP(String(node ?? '')),
    NodeIPsWith: (node) => [a.nodeIP(String(node ?? ''))],
    PodIPWith: (node, host, uid, name, ns) => a.podIP(String(node ?? ''), host === true, String(uid ?? ''), String(name ?? ''), String(ns ?? '')),
    PodIPsWith: (node, host, uid, name, ns) => [a.podIP(String(node ?? ''), host === true, String(uid ?? ''), String(name ?? ''), String(ns ?? ''))],
  }
}
