/**
 * A registry with the scheduler running over it (kube-scheduler's controller, as a whole
 * cluster starts it), and the parts the other members of the cluster play written by hand:
 * Node objects as a kubelet registers them, pods as a user or a controller creates them.
 */
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { KubeSchedulerController, type KubeSchedulerOptions } from '../../../src/server/controllers/kube-scheduler.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

export { eventually }

export interface NodeSpecInput {
  labels?: Record<string, string>
  taints?: { key: string; value?: string; effect: string }[]
  unschedulable?: boolean
  cpu?: string
  memory?: string
  pods?: string
  images?: { names: string[]; sizeBytes: number }[]
}

/** A seeded generator (Park–Miller), so tie-breaks repeat. */
export function seeded(seed = 42): () => number {
  let state = seed
  return () => {
    state = (state * 48271) % 2147483647
    return state / 2147483647
  }
}

export class SchedulerHarness {
  manager: ControllerManager | undefined
  readonly controller: KubeSchedulerController

  private constructor(
    readonly t: TestRegistry,
    options: KubeSchedulerOptions,
  ) {
    this.controller = new KubeSchedulerController({ random: seeded(), ...options })
  }

  static async open(options: KubeSchedulerOptions = {}): Promise<SchedulerHarness> {
    return new SchedulerHarness(await openTestRegistry('scheduler-', ['default', 'kube-system']), options)
  }

  async start(): Promise<void> {
    this.manager = new ControllerManager([this.controller])
    await this.manager.start({ registry: this.t.registry, ready: Promise.resolve(true), log: () => {} })
  }

  async close(): Promise<void> {
    await this.manager?.stop()
    await this.t.close()
  }

  store(group: string, version: string, resource: string): GenericStore {
    return this.t.registry.lookup(group, version, resource)!
  }

  async node(name: string, spec: NodeSpecInput = {}): Promise<KubeObject> {
    const allocatable = { cpu: spec.cpu ?? '4', memory: spec.memory ?? '8Gi', pods: spec.pods ?? '110' }
    const nodes = this.store('', 'v1', 'nodes')
    // Without admission: TaintNodesByCondition's not-ready taint is the node lifecycle controller's to lift, not played here.
    await nodes.create(
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name, labels: { 'kubernetes.io/hostname': name, ...spec.labels } },
        spec: { ...(spec.taints ? { taints: spec.taints } : {}), ...(spec.unschedulable ? { unschedulable: true } : {}) },
      },
      { admission: false },
    )
    // The status as the kubelet reports it, through the status subresource (this server drops a node's status on create).
    return nodes.update(undefined, name, (n) => ({ ...n, status: { capacity: allocatable, allocatable, conditions: [{ type: 'Ready', status: 'True' }], ...(spec.images ? { images: spec.images } : {}) } }), { subresource: 'status', admission: false })
  }

  /** A pod with one container; `spec` merged over it. */
  async pod(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Promise<KubeObject> {
    const { requests, ...rest } = spec as { requests?: Record<string, string> }
    return this.store('', 'v1', 'pods').create(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', ...metadata },
        spec: { containers: [{ name: 'c', image: 'nginx', ...(requests ? { resources: { requests } } : {}) }], ...rest },
      },
      { admission: false },
    )
  }

  async getPod(name: string, namespace = 'default'): Promise<KubeObject> {
    return this.store('', 'v1', 'pods').get(namespace, name)
  }

  async nodeOf(name: string): Promise<string | undefined> {
    return ((await this.getPod(name)).spec as { nodeName?: string }).nodeName
  }

  async waitBound(name: string): Promise<string> {
    await eventually(async () => (await this.nodeOf(name)) !== undefined, `pod ${name} bound`)
    return (await this.nodeOf(name))!
  }

  /** The PodScheduled condition's message once it is False. */
  async waitUnschedulable(name: string): Promise<Record<string, unknown>> {
    let condition: Record<string, unknown> | undefined
    await eventually(async () => {
      const conditions = ((await this.getPod(name)).status as { conditions?: Record<string, unknown>[] } | undefined)?.conditions ?? []
      condition = conditions.find((c) => c.type === 'PodScheduled' && c.status === 'False')
      return condition !== undefined
    }, `pod ${name} unschedulable`)
    return condition!
  }

  /** The events.k8s.io events regarding a pod. */
  async events(pod: string): Promise<KubeObject[]> {
    const { items } = await this.store('events.k8s.io', 'v1', 'events').list({ namespace: 'default' })
    return items.filter((e) => (e.regarding as { name?: string }).name === pod)
  }
}
