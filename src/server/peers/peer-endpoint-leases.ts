/**
 * The peer endpoint leases (staging/src/k8s.io/apiserver/pkg/reconcilers/peer_endpoint_lease.go):
 * each server with the mixed-version proxy on keeps, under `/peerserverleases/<identity>` in the
 * store, an Endpoints object with its peer address and its identity as the `apiserverIdentity`
 * label, written with a TTL (15 s) and refreshed every 10 s. A peer that proxies a request looks
 * the destination's address up here by the identity of its identity Lease.
 */
import { AlreadyExistsError, ConflictError, NotFoundError } from '../store/errors.js'
import type { Store } from '../store/types.js'
import { joinHostPort } from './apiserver-id.js'

export const PEER_SERVER_LEASES_PREFIX = '/peerserverleases/'
/** The reference's label of the identity on the endpoint lease. */
export const APISERVER_IDENTITY_LABEL = 'apiserverIdentity'
/** DefaultPeerEndpointReconcilerTTL and DefaultPeerEndpointReconcileInterval. */
export const PEER_ENDPOINT_TTL_SECONDS = 15
export const PEER_ENDPOINT_INTERVAL_MS = 10_000

interface EndpointsLease {
  metadata?: { name?: string; generation?: number; labels?: Record<string, string> }
  subsets?: Array<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ port?: number }> }>
}

/** host:port split as Go's net.SplitHostPort does for the addresses written here. */
export function splitHostPort(address: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(address)
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! }
  const colon = address.lastIndexOf(':')
  if (colon < 0) throw new Error(`address ${address}: missing port in address`)
  return { host: address.slice(0, colon), port: address.slice(colon + 1) }
}

/** Writes (or refreshes) the lease of `id` at `address`; every write renews the TTL. */
export async function updatePeerEndpointLease(store: Store, id: string, address: string, ttlSeconds = PEER_ENDPOINT_TTL_SECONDS): Promise<void> {
  const { host, port } = splitHostPort(address)
  const key = `${PEER_SERVER_LEASES_PREFIX}${id}`
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await store.get(key)
    const generation = current ? Number((JSON.parse(current.value.toString('utf8')) as EndpointsLease).metadata?.generation ?? 0) + 1 : 1
    // The generation changes so that every refresh is a write (which renews the TTL), as the reference's.
    const value = Buffer.from(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: id, generation, labels: { [APISERVER_IDENTITY_LABEL]: id } },
        subsets: [{ addresses: [{ ip: host }], ports: [{ name: 'https', port: Number(port), protocol: 'TCP' }] }],
      }),
    )
    try {
      if (current) await store.update(key, value, current.modRevision, { ttlSeconds })
      else await store.create(key, value, { ttlSeconds })
      return
    } catch (err) {
      // Another write came between the read and this one: read again.
      if (!(err instanceof ConflictError) && !(err instanceof NotFoundError) && !(err instanceof AlreadyExistsError)) throw err
    }
  }
}

/** Removes the lease of `id` (a server that stops). */
export async function removePeerEndpointLease(store: Store, id: string): Promise<void> {
  await store.delete(`${PEER_SERVER_LEASES_PREFIX}${id}`).catch(() => undefined)
}

/** The address (host:port) of the server `id`, as GetLease reads it; undefined without a lease. */
export async function peerEndpoint(store: Store, id: string): Promise<string | undefined> {
  const { items } = await store.list(PEER_SERVER_LEASES_PREFIX)
  for (const kv of items) {
    const lease = JSON.parse(kv.value.toString('utf8')) as EndpointsLease
    if (lease.metadata?.labels?.[APISERVER_IDENTITY_LABEL] !== id) continue
    const subset = lease.subsets?.[0]
    const ip = subset?.addresses?.[0]?.ip ?? ''
    const port = subset?.ports?.[0]?.port
    return joinHostPort(ip, port === undefined ? '' : String(port))
  }
  return undefined
}
