/**
 * The secure port is bound before anything else is prepared, as the reference creates its
 * listener first: a port in use (or an address not on this host) is reported before
 * certificates are generated or a kubeconfig is written, so a failed start leaves nothing
 * behind; and with --secure-port=0 the chosen port is known before the files that name it
 * are written. The HTTPS server then takes over the bound socket.
 *
 * Until then, connections are closed at once (clients retry, as they would on a refused
 * connection) rather than left waiting for a server that does not answer yet.
 */
import net from 'node:net'
import type { AddressInfo } from 'node:net'

export class ListenError extends Error {}

/** Binds `host:port` (an unspecified address serves both IPv4 and IPv6, as the reference's). */
export async function bindSecurePort(host: string, port: number): Promise<net.Server> {
  const holder = net.createServer((socket) => socket.destroy())
  // An unspecified address serves both families, as the reference does for 0.0.0.0 and ::.
  const listenHost = host === '0.0.0.0' ? '::' : host
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (err: NodeJS.ErrnoException) => {
      reject(new ListenError(`failed to listen on ${host}:${port}: ${err.code === 'EADDRINUSE' ? 'the address is already in use' : err.message}`))
    })
    holder.listen({ port, host: listenHost, ipv6Only: false, exclusive: false }, () => resolve())
  })
  return holder
}

/** The bound address. */
export function boundAddress(holder: net.Server): AddressInfo {
  return holder.address() as AddressInfo
}

/** Hands the bound socket to `server`, which accepts connections from then on. */
export async function serveOn(server: net.Server, holder: net.Server): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(holder, () => {
      server.off('error', reject)
      resolve()
    })
  })
}
