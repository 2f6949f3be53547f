/**
 * NodePort allocation for Services of type NodePort and LoadBalancer from
 * `--service-node-port-range`: a port the user names must be in the range and free, others get
 * a random free one, and an update that leaves a port's nodePort out keeps the allocated one.
 * Free means no stored Service holds it, so two servers on one store see the same ports.
 */
import type { KubeObject } from '../registry/object.js'
import { isPlainObject } from '../registry/object.js'
import { type Cause, errors } from '../status-errors.js'

export interface PortRange {
  base: number
  size: number
}

const DEFAULT_NODE_PORT_RANGE: PortRange = { base: 30000, size: 2768 }

function rangeText(range: PortRange): string {
  return `${range.base}-${range.base + range.size - 1}`
}

function wantsNodePorts(spec: Record<string, unknown>): boolean {
  if (spec.type === 'NodePort') return true
  return spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false
}

function portsOf(spec: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isPlainObject) : []
}

/** Ports used by stored Services, except those of `self` (its own ports stay its own on update). */
function usedPorts(services: readonly KubeObject[], self: KubeObject): Set<number> {
  const used = new Set<number>()
  for (const s of services) {
    if (s.metadata.namespace === self.metadata.namespace && s.metadata.name === self.metadata.name) continue
    const spec = isPlainObject(s.spec) ? s.spec : {}
    for (const p of portsOf(spec)) if (typeof p.nodePort === 'number') used.add(p.nodePort)
  }
  return used
}

/**
 * Fills in spec.ports[].nodePort (mutates `obj`). `old` is the stored object on update: a port
 * with the same port number and protocol keeps its nodePort when the new object omits it.
 */
export async function allocateNodePorts(
  services: () => Promise<readonly KubeObject[]>,
  obj: KubeObject,
  range: PortRange = DEFAULT_NODE_PORT_RANGE,
  old?: KubeObject,
): Promise<void> {
  const spec = isPlainObject(obj.spec) ? obj.spec : undefined
  if (!spec) return
  const ports = portsOf(spec)
  if (!wantsNodePorts(spec)) {
    const causes: Cause[] = []
    ports.forEach((p, i) => {
      if (p.nodePort !== undefined && p.nodePort !== 0 && spec.type === 'ClusterIP') {
        causes.push({ reason: 'FieldValueForbidden', message: "Forbidden: may not be used when `type` is 'ClusterIP'", field: `spec.ports[${i}].nodePort` })
      }
    })
    if (causes.length > 0) throw errors.invalid('', 'Service', obj.metadata.name ?? '', causes)
    return
  }
  const oldSpec = old && isPlainObject(old.spec) && wantsNodePorts(old.spec) ? old.spec : undefined
  if (oldSpec) {
    for (const p of ports) {
      if (p.nodePort !== undefined && p.nodePort !== 0) continue
      const before = portsOf(oldSpec).find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'))
      if (typeof before?.nodePort === 'number') p.nodePort = before.nodePort
    }
  }
  const used = usedPorts(await services(), obj)
  const causes: Cause[] = []
  const invalid = (i: number, value: unknown, detail: string) =>
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field: `spec.ports[${i}].nodePort` })
  ports.forEach((p, i) => {
    if (p.nodePort === undefined || p.nodePort === 0) return
    const value = p.nodePort
    if (typeof value !== 'number' || !Number.isInteger(value)) return invalid(i, value, 'must be an integer')
    if (value < range.base || value >= range.base + range.size) {
      return invalid(i, value, `provided port is not in the valid range. The range of valid ports is ${rangeText(range)}`)
    }
    if (used.has(value)) return invalid(i, value, 'provided port is already allocated')
    used.add(value)
  })
  if (causes.length > 0) throw errors.invalid('', 'Service', obj.metadata.name ?? '', causes)
  for (const p of ports) {
    if (p.nodePort !== undefined && p.nodePort !== 0) continue
    if (used.size >= range.size) throw errors.internal('failed to allocate a nodePort: range is full')
    // A random start spreads allocations the way the reference's random allocator does.
    let candidate = range.base + Math.floor(Math.random() * range.size)
    while (used.has(candidate)) candidate = range.base + ((candidate - range.base + 1) % range.size)
    p.nodePort = candidate
    used.add(candidate)
  }
}
