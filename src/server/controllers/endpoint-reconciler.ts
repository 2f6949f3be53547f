/**
 * The reference's lease endpoint reconciler (pkg/controlplane/reconcilers/lease.go), for
 * `--endpoint-reconciler-type=lease`: every server keeps a lease under `/masterleases/<ip>` in
 * the store (a TTL of 15 s, refreshed every 10 s), and writes the `kubernetes` Endpoints and
 * EndpointSlice in `default` with the addresses of every server holding a lease, so several
 * servers on one etcd each appear. A server that stops removes its lease and itself from the
 * Endpoints; one that dies leaves them when its lease expires.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import type { Store } from '../store/types.js'
import type { Controller, ControllerContext } from './controller.js'

/** The reference's masterLeases prefix, lease TTL and reconcile interval. */
export const MASTER_LEASES_PREFIX = '/masterleases/'
export const LEASE_TTL_SECONDS = 15
export const RECONCILE_INTERVAL_MS = 10_000

export interface EndpointReconcilerDeps {
  store(): Store
  endpoints(): GenericStore | undefined
  endpointSlices(): GenericStore | undefined
  ip: string
  port: number
  log(level: number, msg: string): void
  intervalMs?: number
  ttlSeconds?: number
}

/** The addresses of the servers holding a lease, sorted (the reference sorts them too). */
export async function leasedAddresses(store: Store): Promise<string[]> {
  const { items } = await store.list(MASTER_LEASES_PREFIX)
  return items.map((kv) => kv.key.slice(MASTER_LEASES_PREFIX.length)).sort()
}

const isCode = (err: unknown, code: number) => err instanceof ApiError && err.code === code

export class LeaseEndpointReconciler {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private running: Promise<void> | undefined

  constructor(private readonly deps: EndpointReconcilerDeps) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return
      this.running = this.reconcile()
        .catch((err: unknown) => this.deps.log(2, `endpoint reconciler: ${(err as Error).message}`))
        .finally(() => {
          this.running = undefined
          if (!this.stopped) {
            this.timer = setTimeout(tick, this.deps.intervalMs ?? RECONCILE_INTERVAL_MS)
            this.timer.unref()
          }
        })
    }
    tick()
  }

  /** Refreshes this server's lease, then writes the Endpoints and EndpointSlice of every leased address. */
  async reconcile(): Promise<void> {
    await this.refreshLease()
    await this.write(await leasedAddresses(this.deps.store()))
  }

  /** Stops refreshing, removes the lease and this server from the Endpoints. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.running
    const store = this.deps.store()
    await store.delete(`${MASTER_LEASES_PREFIX}${this.deps.ip}`).catch(() => undefined)
    await this.write((await leasedAddresses(store)).filter((ip) => ip !== this.deps.ip))
  }

  private async refreshLease(): Promise<void> {
    const store = this.deps.store()
    const key = `${MASTER_LEASES_PREFIX}${this.deps.ip}`
    const ttlSeconds = this.deps.ttlSeconds ?? LEASE_TTL_SECONDS
    const current = await store.get(key)
    const generation = current ? Number((JSON.parse(current.value.toString('utf8')) as { metadata?: { generation?: number } }).metadata?.generation ?? 0) + 1 : 1
    // The lease is an Endpoints object as the reference writes it; the generation changes so
    // that every refresh is a write (which renews the TTL).
    const value = Buffer.from(
      JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: this.deps.ip, generation }, subsets: [{ addresses: [{ ip: this.deps.ip }] }] }),
    )
    if (current) await store.update(key, value, current.modRevision, { ttlSeconds })
    else await store.create(key, value, { ttlSeconds })
  }

  private async write(addresses: readonly string[]): Promise<void> {
    const { port } = this.deps
    const ipv6 = addresses.some((ip) => ip.includes(':'))
    const subsets = addresses.length > 0 ? [{ addresses: addresses.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }] : []
    await upsert(this.deps.endpoints(), {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    }, (o) => ({ ...o, subsets }))
    const endpoints = addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } }))
    await upsert(this.deps.endpointSlices(), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: ipv6 ? 'IPv6' : 'IPv4',
      endpoints,
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    }, (o) => ({ ...o, endpoints, ports: [{ name: 'https', port, protocol: 'TCP' }] }))
  }
}

export interface EndpointReconcilerControllerOptions {
  /** This server's address and port in the Endpoints. */
  ip: string
  port: number
  /** The open store as the server holds it (the leases are not API objects: no codec). */
  store(): Store
  /**
   * Resolves true once the `kubernetes` Service is written after /readyz first passed (the
   * reference's kubernetes-service controller reconciles its endpoints then), false when
   * shutdown started first.
   */
  kubernetesServiceWritten: Promise<boolean>
}

/** The lease reconciler as a controller: it runs from the `kubernetes` Service's first write after ready until shutdown. */
export class EndpointReconcilerController implements Controller {
  readonly name = 'lease-endpoint-reconciler'
  private reconciler: LeaseEndpointReconciler | undefined
  private stopped = false
  private ctx: ControllerContext | undefined

  constructor(private readonly options: EndpointReconcilerControllerOptions) {}

  start(ctx: ControllerContext): void {
    this.ctx = ctx
    void this.options.kubernetesServiceWritten.then((written) => {
      if (!written || this.stopped || this.reconciler) return
      const { registry } = ctx
      this.reconciler = new LeaseEndpointReconciler({
        store: () => this.options.store(),
        endpoints: () => registry.lookup('', 'v1', 'endpoints'),
        endpointSlices: () => registry.lookup('discovery.k8s.io', 'v1', 'endpointslices'),
        ip: this.options.ip,
        port: this.options.port,
        log: (level, message) => ctx.log(level, message),
      })
      this.reconciler.start()
    })
  }

  /** Removes this server's lease and address; a failure is only logged (the store may be gone). */
  async stop(): Promise<void> {
    this.stopped = true
    await this.reconciler?.stop().catch((err: unknown) => this.ctx?.log(2, `endpoint reconciler: ${(err as Error).message}`))
  }
}

/** Creates the object, or rewrites the stored one with `change` (no write when nothing changes). */
async function upsert(store: GenericStore | undefined, fresh: KubeObject, change: (o: KubeObject) => KubeObject): Promise<void> {
  if (!store) return
  try {
    await store.rewrite('default', fresh.metadata.name!, (o) => Object.assign(o, change(structuredClone(o))))
  } catch (err) {
    if (!isCode(err, 404)) throw err
    try {
      await store.create(fresh)
    } catch (createErr) {
      if (!isCode(createErr, 409)) throw createErr
    }
  }
}
