/**
 * The workload controllers over a test registry, with the other parts of a cluster played by
 * the test: pods are made Ready here (the simulated nodes' job), nodes written by hand.
 */
import type { GenericStore } from '../../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import type { Controller } from '../../../../src/server/controllers/controller.js'
import { ControllerManager } from '../../../../src/server/controllers/manager.js'
import { type TestRegistry, eventually, openTestRegistry } from '../../api/support.js'

export { eventually }

export interface Cluster {
  t: TestRegistry
  manager: ControllerManager
  store(group: string, resource: string): GenericStore
  pods(namespace?: string): Promise<KubeObject[]>
  /** Plays the kubelet: the pod Running with Ready True. */
  markReady(pod: KubeObject): Promise<void>
  /** Every pod not yet Ready made Ready. */
  markAllReady(namespace?: string): Promise<number>
  /** Resolves once no write happened for `quietMs`. */
  settle(quietMs?: number): Promise<void>
  close(): Promise<void>
}

export async function openCluster(prefix: string, controllers: Controller[]): Promise<Cluster> {
  const t = await openTestRegistry(prefix, ['default', 'kube-system'])
  let lastChange = Date.now()
  const unsubscribe = t.registry.onChange(() => {
    lastChange = Date.now()
  })
  const manager = new ControllerManager(controllers)
  await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: process.env.WORKLOADS_LOG ? (_l, m) => console.log(m) : () => {} })
  const store = (group: string, resource: string) => t.registry.lookup(group, group === '' ? 'v1' : group === 'apps' ? 'v1' : 'v1', resource)!
  const pods = async (namespace = 'default') => (await store('', 'pods').list({ namespace })).items.filter((p) => !p.metadata.deletionTimestamp)
  const markReady = async (pod: KubeObject) => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    await store('', 'pods').update(
      pod.metadata.namespace,
      pod.metadata.name!,
      (current) => ({ ...current, status: { ...(current.status as object), phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }),
      { subresource: 'status' },
    )
  }
  return {
    t,
    manager,
    store,
    pods,
    markReady,
    async markAllReady(namespace) {
      let n = 0
      for (const pod of await pods(namespace)) {
        if ((pod.status as { phase?: string } | undefined)?.phase === 'Running') continue
        await markReady(pod)
        n++
      }
      return n
    },
    async settle(quietMs = 150) {
      await eventually(async () => Date.now() - lastChange >= quietMs, 'the controllers to settle', 10_000)
    },
    async close() {
      unsubscribe()
      await manager.stop()
      await t.close()
    },
  }
}

export function podTemplate(labels: Record<string, string>, image = 'nginx:1.25'): Record<string, unknown> {
  return { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } }
}

export async function events(cluster: Cluster, name: string): Promise<Array<{ reason: string; message: string; component: string }>> {
  const { items } = await cluster.store('', 'events').list({ namespace: 'default' })
  return items
    .filter((e) => (e.involvedObject as { name?: string }).name === name)
    .map((e) => ({ reason: e.reason as string, message: e.message as string, component: (e.source as { component: string }).component }))
}
