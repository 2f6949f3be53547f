/**
 * The reference's HTTPConnect egress (egress_selector.go, tunnelHTTPConnect): a connection to
 * the proxy (TCP, with TLS and a client certificate for an `https://` URL, or a Unix socket),
 * `CONNECT host:port` on it, and the same connection returned as the tunnel once the proxy
 * answers 200. Errors carry the reference's words.
 */
import net from 'node:net'
import tls from 'node:tls'
import { dialDirect } from './dialer.js'

/** How to reach the proxy: the TCP URL with its TLS material, or a Unix socket path. */
export type ProxyEndpoint = { kind: 'tcp'; url: URL; tls?: { ca?: Buffer; cert: Buffer; key: Buffer } } | { kind: 'uds'; path: string }

/** The proxy's address as the reference's errors name it: host:port, or the socket's path. */
export function proxyAddress(proxy: ProxyEndpoint): string {
  if (proxy.kind === 'uds') return proxy.path
  return `${proxy.url.hostname}:${proxy.url.port || (proxy.url.protocol === 'https:' ? '443' : '80')}`
}

function connectProxy(proxy: ProxyEndpoint): Promise<net.Socket> {
  if (proxy.kind === 'uds') {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ path: proxy.path })
      socket.once('connect', () => (socket.off('error', reject), resolve(socket)))
      socket.once('error', reject)
    })
  }
  const port = Number(proxy.url.port || (proxy.url.protocol === 'https:' ? 443 : 80))
  const host = proxy.url.hostname.replace(/^\[|\]$/g, '')
  if (proxy.url.protocol !== 'https:') return dialDirect(host, port)
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      ...(net.isIP(host) ? {} : { servername: host }),
      ...(proxy.tls?.ca ? { ca: proxy.tls.ca } : {}),
      ...(proxy.tls ? { cert: proxy.tls.cert, key: proxy.tls.key } : {}),
    })
    socket.once('secureConnect', () => (socket.off('error', reject), resolve(socket)))
    socket.once('error', reject)
  })
}

/** Reads the proxy's answer head (up to the blank line); rejects when the connection ends first. */
function readAnswerHead(socket: net.Socket): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0)
    const done = (err?: Error, value?: { head: string; rest: Buffer }) => {
      socket.off('data', onData)
      socket.off('end', onEnd)
      socket.off('error', onError)
      if (err) reject(err)
      else resolve(value!)
    }
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      const end = buffered.indexOf('\r\n\r\n')
      if (end >= 0) done(undefined, { head: buffered.subarray(0, end).toString('latin1'), rest: buffered.subarray(end + 4) })
      else if (buffered.length > 64 * 1024) done(new Error('malformed HTTP response: header too long'))
    }
    const onEnd = () => done(new Error('unexpected EOF'))
    const onError = (err: Error) => done(err)
    socket.on('data', onData)
    socket.once('end', onEnd)
    socket.once('error', onError)
  })
}

/** A tunnel to host:port through the proxy. */
export async function dialHttpConnect(proxy: ProxyEndpoint, host: string, port: number): Promise<net.Socket> {
  const via = proxyAddress(proxy)
  const target = `${net.isIP(host) === 6 ? `[${host}]` : host}:${port}`
  let socket: net.Socket
  try {
    socket = await connectProxy(proxy)
  } catch (err) {
    throw new Error(`dialing proxy ${JSON.stringify(via)} failed: ${(err as Error).message}`)
  }
  // The reference sends this Host whatever the proxy's address.
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
  let answer: { head: string; rest: Buffer }
  try {
    answer = await readAnswerHead(socket)
  } catch (err) {
    socket.destroy()
    throw new Error(`reading HTTP response from CONNECT to ${target} via proxy ${via} failed: ${(err as Error).message}`)
  }
  const status = /^HTTP\/\d\.\d (\d{3})(?: (.*))?$/.exec(answer.head.split('\r\n')[0] ?? '')
  if (!status) {
    socket.destroy()
    throw new Error(`reading HTTP response from CONNECT to ${target} via proxy ${via} failed: malformed HTTP response ${JSON.stringify(answer.head.split('\r\n')[0])}`)
  }
  const code = Number(status[1])
  if (code !== 200) {
    socket.destroy()
    throw new Error(`proxy error from ${via} while dialing ${target}, code ${code}: ${status[1]}${status[2] ? ` ${status[2]}` : ''}`)
  }
  // The client speaks first in TLS, so nothing may follow the answer yet (as the reference checks).
  if (answer.rest.length > 0) {
    socket.destroy()
    throw new Error(`unexpected ${answer.rest.length} bytes of buffered data from CONNECT proxy ${JSON.stringify(via)}`)
  }
  return socket
}
