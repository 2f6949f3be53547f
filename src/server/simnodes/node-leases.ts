/**
 * The simulated nodes' heartbeats in kube-node-lease, as the kubelet's node lease controller
 * writes them: one Lease per node named after it, owned by its Node, holderIdentity the node,
 * leaseDurationSeconds 40, renewTime renewed every renew interval (nodeStatusUpdateFrequency).
 */
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import type { Clock } from '../controllers/clock.js'

/** The kubelet's nodeLeaseDurationSeconds. */
const LEASE_DURATION_SECONDS = 40
const NAMESPACE = 'kube-node-lease'
/** Renewals written at once (a thousand nodes renew in batches, not in one burst). */
const RENEW_BATCH = 32

const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z')

export class NodeLeases {
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly registry: Registry,
    private readonly nodes: readonly string[],
    private readonly options: { clock: Clock; renewIntervalMs: number; log(level: number, message: string): void },
  ) {}

  start(): void {
    void this.renewAll()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  private async renewAll(): Promise<void> {
    if (this.stopped) return
    const due = this.nodes
    for (let i = 0; i < due.length && !this.stopped; i += RENEW_BATCH) {
      await Promise.all(due.slice(i, i + RENEW_BATCH).map((n) => this.renew(n).catch((err: Error) => this.options.log(2, `failed to update lease of node ${n}: ${err.message}`))))
    }
    if (this.stopped) return
    this.timer = setTimeout(() => void this.renewAll(), this.options.renewIntervalMs)
    this.timer.unref()
  }

  private async renew(node: string): Promise<void> {
    const leases = this.registry.lookup('coordination.k8s.io', 'v1', 'leases')!
    const now = microTime(this.options.clock.now())
    try {
      await leases.update(NAMESPACE, node, (cur) => ({ ...cur, spec: { ...(cur.spec as object), holderIdentity: node, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: now } }), { retryOnConflict: true, admission: false })
      return
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
    }
    const owner = await this.registry.lookup('', 'v1', 'nodes')!.get(undefined, node)
    const lease: KubeObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: node, namespace: NAMESPACE, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: owner.metadata.uid }] },
      spec: { holderIdentity: node, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: now },
    }
    await leases.create(lease, { admission: false })
  }
}
