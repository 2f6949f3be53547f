/**
 * NodePorts (pkg/scheduler/framework/plugins/nodeports): the pod's host ports must be free on the
 * node; a port held on 0.0.0.0 conflicts with the same port and protocol on any address.
 */
import type { FilterPlugin } from '../framework.js'
import { type HostPort, hostPortsOf } from '../node-info.js'
import { unschedulable } from '../status.js'

export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports"

const conflicts = (a: HostPort, b: HostPort): boolean => a.port === b.port && a.protocol === b.protocol && (a.ip === b.ip || a.ip === '0.0.0.0' || b.ip === '0.0.0.0')

export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  preFilter(state) {
    state.data.set('NodePorts', hostPortsOf(state.pod))
    return undefined
  },
  filter(state, node) {
    const wanted = state.data.get('NodePorts') as HostPort[]
    if (wanted.length === 0) return undefined
    return wanted.some((w) => node.usedPorts.some((u) => conflicts(w, u))) ? unschedulable(ERR_REASON_PORTS) : undefined
  },
}
