/**
 * What the peers serve (staging/src/k8s.io/apiserver/pkg/util/peerproxy, peer_discovery.go):
 * the identity Leases of the other servers (kube-system, `apiserver.kubernetes.io/identity=
 * kube-apiserver`) are followed, and whenever one appears, goes or changes holder (a restart),
 * each peer's aggregated discovery (`/api` and `/apis`) is read again over the peer connection
 * as `system:apiserver`, giving each peer's group/version/resources. A peer that cannot be
 * read yet (its endpoint lease comes after its identity lease) is tried again.
 */
import type { Registry } from '../api/registry/registry.js'
import type { Store } from '../store/types.js'
import { IDENTITY_LEASE_LABEL, KUBE_APISERVER } from './apiserver-id.js'
import { leaseSpec } from './lease-times.js'
import { peerEndpoint } from './peer-endpoint-leases.js'
import { type PeerTls, authProxyHeaders, peerRequest } from './peer-request.js'

/** How often the identity leases are listed (the reference follows them with an informer). */
export const PEER_SYNC_INTERVAL_MS = 2_000
/** maxRetries of peer_discovery.go: a peer still unreadable after that many tries is dropped. */
const MAX_RETRIES = 20
/** The discovery documents asked for, best first (discovery.AcceptV2Local, AcceptV2, AcceptV1). */
const DISCOVERY_ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer',
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json',
].join(',')
/** The user the discovery requests are made as (user.APIServerUser in system:authenticated). */
const APISERVER_USER = { name: 'system:apiserver', uid: 'system:apiserver', groups: ['system:authenticated'] }

/** `group/version/resource` (the core group is the empty string). */
export const gvrKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`

interface DiscoveryList {
  items?: Array<{ metadata?: { name?: string }; versions?: Array<{ version?: string; resources?: Array<{ resource?: string }> }> }>
}

export interface PeerDiscoveryDeps {
  /** This server's identity: its own lease is not a peer. */
  readonly serverId: string
  readonly tls: PeerTls
  readonly registry: () => Registry | undefined
  readonly store: () => Store | undefined
  readonly log: (level: number, message: string) => void
  readonly intervalMs?: number
}

export class PeerDiscovery {
  /** serverId → the group/version/resources it serves. */
  private cache = new Map<string, ReadonlySet<string>>()
  /** The identity leases last read (name=holder, sorted), and whether reading them all succeeded. */
  private observed = ''
  private complete = false
  /** Failed reads of the current peers; after MAX_RETRIES the failing ones are left out until the peers change. */
  private failures = 0
  private synced = false
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(private readonly deps: PeerDiscoveryDeps) {}

  /** Whether the first sync is done (until then every request is served here). */
  hasFinishedSync(): boolean {
    return this.synced
  }

  start(): void {
    const tick = () => {
      if (this.stopped) return
      void this.sync()
        .catch((err: Error) => this.deps.log(2, `peer discovery sync: ${err.message}`))
        .finally(() => {
          if (this.stopped) return
          this.timer = setTimeout(tick, this.deps.intervalMs ?? PEER_SYNC_INTERVAL_MS)
          this.timer.unref()
        })
    }
    tick()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  /** The peers (not this server) that serve the group/version/resource. */
  serviceableBy(group: string, version: string, resource: string): string[] {
    const key = gvrKey(group, version, resource)
    return [...this.cache].filter(([id, served]) => id !== this.deps.serverId && served.has(key)).map(([id]) => id)
  }

  /** The address of a peer, from its endpoint lease. */
  async endpointOf(serverId: string): Promise<string | undefined> {
    const store = this.deps.store()
    return store ? peerEndpoint(store, serverId) : undefined
  }

  /** Reads the identity leases; a change of peers (or an earlier failure) reads their discovery again. */
  async sync(): Promise<void> {
    const registry = this.deps.registry()
    const leases = registry?.lookup('coordination.k8s.io', 'v1', 'leases')
    if (!leases) return
    const { items } = await leases.list({ namespace: 'kube-system', labels: [{ key: IDENTITY_LEASE_LABEL, operator: '=', values: [KUBE_APISERVER] }] })
    const peers = items.filter((l) => l.metadata.name !== this.deps.serverId && leaseSpec(l).holderIdentity)
    const observed = peers.map((l) => `${l.metadata.name}=${leaseSpec(l).holderIdentity}`).sort().join(',')
    if (observed !== this.observed || !this.complete) {
      const next = new Map<string, ReadonlySet<string>>()
      let complete = true
      for (const lease of peers) {
        const id = lease.metadata.name!
        try {
          const served = await this.fetchDiscovery(id)
          if (served.size > 0) next.set(id, served)
        } catch (err) {
          complete = false
          this.deps.log(2, `error syncing discovery for peer lease ${id}: ${(err as Error).message}`)
        }
      }
      this.failures = observed === this.observed && !complete ? this.failures + 1 : complete ? 0 : 1
      this.cache = next
      this.observed = observed
      this.complete = complete || this.failures >= MAX_RETRIES
    }
    this.synced = true
  }

  private async fetchDiscovery(serverId: string): Promise<Set<string>> {
    const address = await this.endpointOf(serverId)
    if (!address) throw new Error(`failed to get host port info from identity lease for server ${serverId}: no endpoint lease`)
    const served = new Set<string>()
    for (const path of ['/api', '/apis']) {
      const list = JSON.parse(await this.get(address, path)) as DiscoveryList
      for (const group of list.items ?? []) {
        for (const version of group.versions ?? []) {
          for (const resource of version.resources ?? []) served.add(gvrKey(group.metadata?.name ?? '', version.version ?? '', resource.resource ?? ''))
        }
      }
    }
    return served
  }

  private get(address: string, path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = peerRequest(this.deps.tls, address, 'GET', path, authProxyHeaders({ accept: DISCOVERY_ACCEPT }, APISERVER_USER), (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`discovery request failed with status: ${res.statusCode}`))
          else resolve(Buffer.concat(chunks).toString('utf8'))
        })
      })
      req.setTimeout(10_000, () => req.destroy(new Error(`discovery request to ${address} timed out`)))
      req.on('error', reject)
      req.end()
    })
  }
}
