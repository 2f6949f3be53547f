/**
 * The egress contract every outgoing connection of the server goes through (the reference's
 * egressselector.Lookup(networkContext) dialer): a network (the reference's selection names)
 * and a host and port give a raw byte stream to that address, through the configured proxy or
 * straight; callers wrap TLS around it themselves (`tls.connect({ socket, ... })`).
 */
import net from 'node:net'
import type { Duplex } from 'node:stream'

/** The reference's egress selections: `cluster` (webhooks, aggregated servers, node agents), `controlplane`, `etcd`. */
export type EgressNetwork = 'cluster' | 'controlplane' | 'etcd'

export interface EgressDialer {
  dial(network: EgressNetwork, host: string, port: number): Promise<net.Socket | Duplex>
}

/** A TCP connection straight to the address, resolved once it is connected (the reference's Direct). */
export function dialDirect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port, noDelay: true })
    socket.once('connect', () => {
      socket.off('error', reject)
      resolve(socket)
    })
    socket.once('error', reject)
  })
}

/** Every network direct: the server without an egress selector configuration. */
export const DIRECT_DIALER: EgressDialer = {
  dial: (_network, host, port) => dialDirect(host, port),
}
