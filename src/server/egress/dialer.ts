/**
 * How the server opens a connection out of itself (the reference's egress selector): a raw TCP
 * stream to host:port on one of the three networks, through the configured proxy or direct.
 * Callers wrap TLS around the stream themselves (tls.connect({ socket })). This is the direct
 * default; `--egress-selector-config-file` chooses another dialer per network.
 */
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** The reference's EgressSelection names. */
export type EgressNetwork = 'cluster' | 'controlplane' | 'etcd'

export interface EgressDialer {
  dial(network: EgressNetwork, host: string, port: number): Promise<Socket | Duplex>
}

/** Every network direct: a TCP connection to host:port, resolved once connected. */
export const DIRECT_DIALER: EgressDialer = {
  dial: (_network, host, port) =>
    new Promise((resolve, reject) => {
      const socket = connect({ host, port })
      socket.once('connect', () => {
        socket.off('error', reject)
        resolve(socket)
      })
      socket.once('error', reject)
    }),
}
