/**
 * The simulated nodes of `client cluster start`, as kwok runs them: each configured node is
 * registered (a Node with its pod CIDR, labels, taints, capacity, allocatable, addresses and
 * node-agent endpoint), renews its Lease in kube-node-lease every nodeStatusUpdateFrequency
 * as the kubelet does, and its status and its pods' move through the stages (kwok's defaults, or
 * the Stage files given): Ready at once, heartbeats, pods Running and Ready once bound, a Job's
 * pods Succeeded, deleted pods removed, with the kubelet's events for the containers it starts
 * (kubelet-events.ts). It runs as one controller of the manager's list.
 */
import { readFileSync } from 'node:fs'
import type { ClusterConfig } from '../config.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { ApiError } from '../api/status-errors.js'
import { type Clock, SYSTEM_CLOCK } from '../controllers/clock.js'
import type { Controller, ControllerContext } from '../controllers/controller.js'
import { EventRecorder } from '../controllers/event-recorder.js'
import { parseTaint } from '../../core/options/taints.js'
import { DEFAULT_STAGES } from './generated/default-stages.js'
import { NodeLeases } from './node-leases.js'
import { SimulatedNodeAgent } from './node-agent.js'
import { KubeletEvents } from './kubelet-events.js'
import type { ForwardPod } from './pod-port-forwarder.js'
import { PodIPs, nodePodCidr } from './pod-ips.js'
import { type Stage, parseStages } from './stage.js'
import { StageEngine } from './stage-engine.js'
import { templateFuncs } from './template-funcs.js'

/** Where every simulated node's agent listens. */
const NODE_IP = '127.0.0.1'
const REGISTER_BATCH = 32

export interface SimulatedNodesOptions {
  readonly cluster: ClusterConfig
  readonly clock?: Clock
  /** The version nodes report (nodeInfo.kubeletVersion, kwok's Version). */
  readonly version: string
  log(level: number, message: string): void
}

/** The stages: the files given, or kwok's defaults. */
export function loadStages(files: readonly string[]): Stage[] {
  if (files.length > 0) return files.flatMap((file) => parseStages(readFileSync(file, 'utf8')))
  return DEFAULT_STAGES.flatMap((s) => parseStages(s.yaml))
}

export class SimulatedNodes implements Controller {
  readonly name = 'simulated-nodes'
  private agent: SimulatedNodeAgent | undefined
  private engine: StageEngine | undefined
  private leases: NodeLeases | undefined
  private unsubscribe: (() => void) | undefined
  private running: Promise<void> | undefined
  private stopped = false
  private readonly names: Set<string>
  private readonly cidrs = new Map<string, string>()
  private readonly ips: PodIPs

  constructor(private readonly options: SimulatedNodesOptions) {
    this.names = new Set(options.cluster.nodeNames)
    options.cluster.nodeNames.forEach((name, i) => this.cidrs.set(name, nodePodCidr(options.cluster.clusterCidr, i)))
    this.ips = new PodIPs((node) => this.cidrs.get(node))
  }

  private get clock(): Clock {
    return this.options.clock ?? SYSTEM_CLOCK
  }

  /** Starts in the background: the post-start hook that starts the controllers (and /readyz) does not wait for the nodes. */
  start(ctx: ControllerContext): void {
    this.running = this.run(ctx).catch((err: Error) => ctx.log(0, `simulated nodes: ${err.message}`))
  }

  private async run(ctx: ControllerContext): Promise<void> {
    const { registry } = ctx
    const stages = loadStages(this.options.cluster.nodeStages)
    if (this.stopped) return
    // Read at start (a missing file stops it, as a stage file does); the forwarder is loaded on first use.
    const ruleTexts = this.options.cluster.nodePortForwards.map((file) => readFileSync(file, 'utf8'))
    let forwarder: Promise<import('./pod-port-forwarder.js').PodPortForwarder> | undefined
    const loadForwarder = () =>
      (forwarder ??= Promise.all([import('./pod-port-forwarder.js'), import('./port-forward-rules.js')]).then(([{ PodPortForwarder }, { parsePortForwardRules }]) => {
        const rules = parsePortForwardRules(ruleTexts)
        return new PodPortForwarder(() => rules)
      }))
    this.agent = await SimulatedNodeAgent.start(
      (ns, pod, container) => this.container(registry, ns, pod, container),
      () => this.clock.now(),
      { pod: (ns, name) => this.forwardPod(registry, ns, name), forward: async (pod, port, stream) => (await loadForwarder()).forward(pod, port, stream) },
    )
    const port = this.agent.port
    const addresses = {
      now: () => this.clock.now(),
      version: this.options.version,
      nodeIP: () => NODE_IP,
      nodePort: () => port,
      podIP: (node: string, hostNetwork: boolean, uid: string, name: string, namespace: string) => (hostNetwork ? NODE_IP : this.ips.ipFor(node, uid || `${namespace}/${name}`)),
    }
    this.engine = new StageEngine(registry, {
      stages,
      owns: (obj) => (obj.kind === 'Node' ? this.names.has(obj.metadata.name ?? '') : this.names.has(String((obj.spec as { nodeName?: string } | undefined)?.nodeName ?? ''))),
      funcsFor: (obj) => templateFuncs(addresses, obj.kind === 'Node' ? (obj.metadata.name ?? '') : String((obj.spec as { nodeName?: string }).nodeName ?? '')),
      events: new EventRecorder(registry, 'kubelet', { clock: this.clock, onError: (err) => ctx.log(2, `simulated node event: ${err.message}`) }),
      now: () => this.clock.now(),
      log: (level, message) => ctx.log(level, message),
    })
    const engine = this.engine
    const kubeletEvents = new KubeletEvents(registry, { clock: this.clock, owns: (node) => this.names.has(node), onError: (err) => ctx.log(2, `simulated kubelet event: ${err.message}`) })
    // Registered before the stages follow them: node-initialize then sees the addresses given here.
    // A few at a time: a thousand nodes register in seconds, without a thousand writes at once.
    const names = this.options.cluster.nodeNames
    for (let i = 0; i < names.length && !this.stopped; i += REGISTER_BATCH) await Promise.all(names.slice(i, i + REGISTER_BATCH).map((name) => this.register(registry, name, port)))
    this.unsubscribe = registry.onChange((change) => {
      const { object } = change
      if (object.kind !== 'Node' && object.kind !== 'Pod') return
      if (change.strategy.group !== '' || (change.strategy.resource !== 'nodes' && change.strategy.resource !== 'pods')) return
      if (change.type === 'deleted' && object.kind === 'Pod') this.ips.release(object.metadata.uid || `${object.metadata.namespace}/${object.metadata.name}`)
      if (object.kind === 'Pod') kubeletEvents.podChanged(object, change.type === 'deleted')
      engine.consider(object, change.type === 'deleted')
    })
    this.leases = new NodeLeases(registry, this.options.cluster.nodeNames, { clock: this.clock, renewIntervalMs: this.options.cluster.nodeStatusUpdateFrequencyMs, log: ctx.log })
    this.leases.start()
    // Pods bound before this start (a restart, or a failover): they are looked at once too.
    for (const node of (await registry.lookup('', 'v1', 'nodes')!.list()).items) engine.consider(node)
    for (const pod of (await registry.lookup('', 'v1', 'pods')!.list()).items) {
      kubeletEvents.alreadyRunning(pod)
      engine.consider(pod)
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.running
    this.unsubscribe?.()
    this.engine?.stop()
    this.leases?.stop()
    await this.agent?.close()
  }

  /** The Node as the kubelet registers it (then its status, written through the status subresource). */
  private async register(registry: Registry, name: string, port: number): Promise<void> {
    const nodes = registry.lookup('', 'v1', 'nodes')!
    const { cluster } = this.options
    const taints = cluster.registerWithTaints.map(parseTaint).filter((t): t is Exclude<typeof t, string> => typeof t !== 'string')
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', type: 'kwok', ...cluster.nodeLabels },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
      },
      spec: { podCIDR: this.cidrs.get(name), podCIDRs: [this.cidrs.get(name)], ...(taints.length > 0 ? { taints } : {}) },
    }
    try {
      await nodes.create(node, { admission: false })
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err
    }
    const status = {
      capacity: { ...cluster.nodeCapacity },
      allocatable: { ...cluster.nodeCapacity },
      addresses: [
        { type: 'InternalIP', address: NODE_IP },
        // Every simulated node's agent is on this host: the API server prefers Hostname addresses.
        { type: 'Hostname', address: 'localhost' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: port } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: `kwok-${this.options.version}`,
        kernelVersion: `kwok-${this.options.version}`,
        kubeProxyVersion: `kwok-${this.options.version}`,
        kubeletVersion: `kwok-${this.options.version}`,
        machineID: '',
        operatingSystem: 'linux',
        osImage: '',
        systemUUID: '',
      },
    }
    await nodes.update(undefined, name, (cur) => ({ ...cur, status: { ...((cur.status as object | undefined) ?? {}), ...status } }), { subresource: 'status', retryOnConflict: true })
  }

  /** A pod bound to a simulated node, as the port-forwarder needs it. */
  private async forwardPod(registry: Registry, namespace: string, name: string): Promise<ForwardPod | undefined> {
    const obj = await podOrNone(registry, namespace, name)
    if (!obj) return undefined
    const spec = obj.spec as { nodeName?: string; containers?: Array<{ image?: string }> }
    if (!this.names.has(spec.nodeName ?? '')) return undefined
    return { namespace, name, uid: obj.metadata.uid ?? '', images: (spec.containers ?? []).map((c) => c.image ?? '') }
  }

  private async container(registry: Registry, namespace: string, pod: string, container: string): Promise<{ image: string; node: string } | undefined> {
    const obj = await podOrNone(registry, namespace, pod)
    if (!obj) return undefined
    const spec = obj.spec as { nodeName?: string; containers?: Array<{ name: string; image?: string }>; initContainers?: Array<{ name: string; image?: string }> }
    const c = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((x) => x.name === container)
    return c ? { image: c.image ?? '', node: spec.nodeName ?? '' } : undefined
  }
}

/** The pod, or undefined when there is none by that name. */
async function podOrNone(registry: Registry, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await registry.lookup('', 'v1', 'pods')!.get(namespace, name)
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined
    throw err
  }
}
