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

/**
 * Binds `host:port` (an unspecified address serves both IPv4 and IPv6, as the reference's).
 * With `reusePort` (--permit-port-sharing) the socket has SO_REUSEPORT, so several servers
 * share the port and the kernel spreads connections among them; Node 20 cannot set that
 * option, so the socket comes from a small native binding and Node listens on its descriptor.
 */
export async function bindSecurePort(host: string, port: number, reusePort = false): Promise<net.Server> {
  const holder = net.createServer((socket) => socket.destroy())
  // An unspecified address serves both families, as the reference does for 0.0.0.0 and ::.
  const listenHost = host === '0.0.0.0' ? '::' : host
  const failed = (reason: string) => new ListenError(`failed to listen on ${host}:${port}: ${reason}`)
  const fd = reusePort ? await reusePortSocket(listenHost, port).catch((err: Error) => Promise.reject(failed(/in use/i.test(err.message) ? 'the address is already in use' : err.message))) : undefined
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (err: NodeJS.ErrnoException) => {
      reject(failed(err.code === 'EADDRINUSE' ? 'the address is already in use' : err.message))
    })
    if (fd !== undefined) holder.listen({ fd }, () => resolve())
    else holder.listen({ port, host: listenHost, ipv6Only: false, exclusive: false }, () => resolve())
  })
  return holder
}

/** The native part of node-unix-socket: its prebuilt addon, one package per platform, loaded directly. */
interface ReusePortAddon {
  socketNewSoReuseportFd(domain: 'ipv4' | 'ipv6', port: number, ip: string): number
}

/** The registry carries the addon for Linux on x64 only (glibc and musl builds), optional dependencies both. */
const REUSE_PORT_ADDONS = ['node-unix-socket-linux-x64-gnu', 'node-unix-socket-linux-x64-musl']

/** A bound TCP socket with SO_REUSEADDR and SO_REUSEPORT, as a file descriptor. */
async function reusePortSocket(host: string, port: number): Promise<number> {
  const { createRequire } = await import('node:module')
  const require = createRequire(import.meta.url)
  let addon: ReusePortAddon | undefined
  for (const name of REUSE_PORT_ADDONS) {
    try {
      addon = require(name) as ReusePortAddon
      break
    } catch {
      // Not installed for this platform, or not loadable here (the other C library): the next one.
    }
  }
  if (!addon) throw new Error(`port sharing needs SO_REUSEPORT, which this build sets only on Linux x64 (${process.platform} ${process.arch} here)`)
  return addon.socketNewSoReuseportFd(net.isIPv4(host) ? 'ipv4' : 'ipv6', port, host)
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
