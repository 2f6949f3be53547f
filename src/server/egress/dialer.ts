/**
 * How the server opens a connection to something outside it (node agents, extension servers,
 * webhooks): a raw TCP stream to host:port for one egress selection, which callers wrap in TLS
 * themselves. The direct dialer connects straight away; a configured egress selector replaces
 * it for its networks.
 */
import { connect, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** The reference's egress selections (EgressSelectorConfiguration's names). */
export type EgressNetwork = 'cluster' | 'controlplane' | 'etcd'

export interface EgressDialer {
  dial(network: EgressNetwork, host: string, port: number): Promise<Socket | Duplex>
}

/** A plain TCP connection, resolved once it is established. */
export const DIRECT_DIALER: EgressDialer = {
  dial(_network, host, port) {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port })
      socket.once('connect', () => {
        socket.off('error', reject)
        resolve(socket)
      })
      socket.once('error', reject)
    })
  },
}
