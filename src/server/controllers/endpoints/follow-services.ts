/**
 * The informer wiring both endpoints controllers share: a Service's write marks it; a pod's
 * write marks the Services that select it now and those that selected it before (its labels
 * may have changed: the reference compares the old and new pod's labels), and, when asked, a
 * change of a node's zone label marks every Service with pods (the EndpointSlices' zone), so
 * that heartbeats do not.
 */
import type { Registry } from '../../api/registry/registry.js'
import type { KubeObject } from '../../api/registry/object.js'
import type { KeyedQueue } from '../kit/keyed-queue.js'
import { keyOf } from '../kit/keyed-queue.js'
import { ServiceIndex } from './service-index.js'
import { selects } from './service-pods.js'

export const ZONE_LABEL = 'topology.kubernetes.io/zone'

export async function followServices(registry: Registry, queue: KeyedQueue, options: { nodes?: boolean } = {}): Promise<() => void> {
  const index = new ServiceIndex()
  /** pod uid → the Service keys that selected it at its last write. */
  const selectedBy = new Map<string, Set<string>>()
  const podChanged = (pod: KubeObject, deleted: boolean) => {
    const uid = pod.metadata.uid ?? ''
    const keys = new Set(selectedBy.get(uid) ?? [])
    const now = new Set<string>()
    for (const service of index.inNamespace(pod.metadata.namespace ?? '')) if (selects(service, pod)) now.add(keyOf(service.metadata.namespace, service.metadata.name))
    for (const key of now) keys.add(key)
    if (deleted || now.size === 0) selectedBy.delete(uid)
    else selectedBy.set(uid, now)
    for (const key of keys) queue.add(key)
  }
  const zones = new Map<string, string>()
  const unsubscribe = registry.onChange(({ type, object, strategy }) => {
    if (strategy.group !== '') return
    if (strategy.resource === 'services') {
      if (type === 'deleted') index.delete(object)
      else index.set(object)
      queue.add(keyOf(object.metadata.namespace, object.metadata.name))
    } else if (strategy.resource === 'pods') podChanged(object, type === 'deleted')
    else if (strategy.resource === 'nodes' && options.nodes) {
      const zone = type === 'deleted' ? '' : (object.metadata.labels?.[ZONE_LABEL] ?? '')
      if ((zones.get(object.metadata.name!) ?? '') === zone) return
      if (zone === '') zones.delete(object.metadata.name!)
      else zones.set(object.metadata.name!, zone)
      for (const keys of selectedBy.values()) for (const key of keys) queue.add(key)
    }
  })
  for (const service of (await registry.lookup('', 'v1', 'services')!.list()).items) {
    index.set(service)
    queue.add(keyOf(service.metadata.namespace, service.metadata.name))
  }
  return unsubscribe
}
