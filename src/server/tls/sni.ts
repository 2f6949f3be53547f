/**
 * `--tls-sni-cert-key`: choosing a certificate by server name, with the reference's rules
 * (k8s.io/apiserver dynamiccertificates BuildNamedCertificates and Go's crypto/tls):
 *
 * - a certificate with explicit names (`cert,key:name1,name2`) is chosen for those names only;
 *   one without is chosen for the names taken from it: the subject CN (unless it is an IP or
 *   not a DNS-1123 subdomain, optionally with a `*.` prefix) and its DNS and IP SANs;
 * - when several certificates claim a name, explicit names win over names taken from a
 *   certificate, and among the same kind the earlier `--tls-sni-cert-key` wins;
 * - the exact name is looked up first, then the name with its first label replaced by `*`
 *   (so `*.example.com` covers `a.example.com`, not `a.b.example.com` nor `example.com`);
 * - no match: the default serving certificate.
 *
 * IP addresses may be patterns. Clients do not send IP addresses as SNI (RFC 6066), so, like
 * the reference, a connection without SNI is matched on the local address it arrived at: see
 * `attachLocalAddressSelection`.
 */
import tls from 'node:tls'
import { certificateNames } from './generate.js'
import { canonicalIp, isDns1123Subdomain, nameKey } from './names.js'
import type { LoadedPair } from './pem.js'

export interface SniCertificate {
  /** Position in `--tls-sni-cert-key`, from 0. */
  index: number
  pair: LoadedPair
  /** Names given after the colon, as lookup keys. */
  explicitNames: string[]
  /** Names taken from the certificate (used only when there are no explicit names). */
  certificateNames: string[]
  context: tls.SecureContext
}

/** The names Go's getCertificateNames takes from a certificate. */
export async function namesFromCertificate(certPem: string): Promise<string[]> {
  const info = await certificateNames(certPem)
  const names: string[] = []
  const cn = info.commonName
  if (cn !== undefined && canonicalIp(cn) === undefined && (cn === '*' || isDns1123Subdomain(cn.replace(/^\*\./, '')))) {
    names.push(cn)
  }
  names.push(...info.dns)
  for (const ip of info.ips) names.push(canonicalIp(ip) ?? ip)
  return [...new Set(names.map(nameKey).filter((n) => n !== ''))]
}

/** Name to certificate, with the precedence described in the file comment. */
export function buildNameMap(certs: readonly SniCertificate[]): Map<string, SniCertificate> {
  const byName = new Map<string, SniCertificate>()
  const explicit = new Map<string, SniCertificate>()
  // Backwards, so that earlier certificates overwrite later ones.
  for (let i = certs.length - 1; i >= 0; i--) {
    const cert = certs[i]!
    for (const name of cert.explicitNames) explicit.set(name, cert)
    if (cert.explicitNames.length === 0) {
      for (const name of cert.certificateNames) byName.set(name, cert)
    }
  }
  for (const [name, cert] of explicit) byName.set(name, cert)
  return byName
}

/** The certificate for a server name (or local IP address), or undefined for the default one. */
export function lookupName(map: ReadonlyMap<string, SniCertificate>, serverName: string): SniCertificate | undefined {
  const name = nameKey(serverName)
  if (name === '') return undefined
  const exact = map.get(name)
  if (exact) return exact
  if (canonicalIp(name) !== undefined) return undefined
  const labels = name.split('.')
  labels[0] = '*'
  return map.get(labels.join('.'))
}

export type SniCallback = (servername: string, cb: (err: Error | null, ctx?: tls.SecureContext) => void) => void

/**
 * Node's SNICallback: the matching certificate's context, else `defaultContext` (returned
 * explicitly, because the connection may have started with an IP-chosen context).
 */
export function createSniCallback(map: ReadonlyMap<string, SniCertificate>, defaultContext: tls.SecureContext): SniCallback {
  return (servername, cb) => {
    const match = lookupName(map, servername)
    cb(null, match ? match.context : defaultContext)
  }
}

type ConnectionListener = (this: tls.Server, socket: import('node:net').Socket) => void

/**
 * Makes IP patterns work for clients that send no SNI (the usual case when connecting to an IP
 * address): for each new connection whose local address matches an IP pattern, the server's
 * TLS connection listener is run with that certificate's context as the starting one. This
 * uses Node's `_sharedCreds` (the server's default context, stable since Node 0.x); if it is
 * missing nothing is changed and such clients get the default certificate. Returns whether the
 * selection was installed.
 */
export function attachLocalAddressSelection(server: tls.Server, map: ReadonlyMap<string, SniCertificate>): boolean {
  const hasIpPattern = [...map.keys()].some((name) => canonicalIp(name) !== undefined)
  const internal = server as unknown as { _sharedCreds?: tls.SecureContext }
  if (!hasIpPattern || typeof internal._sharedCreds !== 'object' || internal._sharedCreds === null) return false
  const marker = Symbol.for('client.tls.localAddressSelection')
  const marked = server as unknown as Record<symbol, boolean>
  if (marked[marker]) return true
  marked[marker] = true
  const listeners = server.listeners('connection') as ConnectionListener[]
  server.removeAllListeners('connection')
  for (const listener of listeners) {
    server.on('connection', function wrapped(this: tls.Server, socket) {
      const local = socket.localAddress ? canonicalIp(socket.localAddress) : undefined
      const match = local === undefined ? undefined : map.get(local)
      if (!match) {
        listener.call(this, socket)
        return
      }
      const saved = internal._sharedCreds
      internal._sharedCreds = match.context
      try {
        listener.call(this, socket)
      } finally {
        internal._sharedCreds = saved
      }
    })
  }
  return true
}
