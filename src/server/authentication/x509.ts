/**
 * Client certificates (reference: request/x509): a certificate the client presented in the
 * TLS handshake that chains to an authority of --client-ca-file (and, without a CA file of
 * the user's, the CA the server generated in --cert-dir, which signs the administrator
 * certificate of --write-kubeconfig) is the user named by its subject's CommonName, in the
 * groups of its Organizations. Expired, not-yet-valid, foreign and server-only certificates
 * are refused (401), never anonymous; a certificate without a CommonName is not read.
 *
 * The server asks for a certificate without naming acceptable authorities, so a client
 * always sends the one it has and a wrong one is refused rather than silently dropped.
 * The chain is verified once per connection; validity dates are checked on every request.
 */
import { X509Certificate, createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { TLSSocket } from 'node:tls'
import type { Http2ServerRequest } from 'node:http2'
import type { Request, UserInfo } from '../http/types.js'
import { subjectFromDer } from '../tls/der-names.js'
import { AuthenticationConfigError, AuthenticationError, type Authenticator, CREDENTIAL_ID_KEY, copyOfUser, lineAt } from './authenticator.js'

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2'
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0'

export interface CaBundle {
  /** Where the authorities came from, for messages. */
  source: string
  certs: X509Certificate[]
  /** The authorities as PEM, as the extension-apiserver-authentication config map publishes them. */
  pem: string
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----\r?\n?/g

/** The certificates of a PEM bundle; a block that does not parse is named by its line. */
export function parseCaBundle(text: string, source: string): CaBundle {
  const certs: X509Certificate[] = []
  let pem = ''
  for (const match of text.matchAll(PEM_BLOCK)) {
    if (match[1] !== 'CERTIFICATE') continue
    const block = `-----BEGIN CERTIFICATE-----\n${match[2]!.replace(/\r\n/g, '\n')}-----END CERTIFICATE-----\n`
    try {
      certs.push(new X509Certificate(block))
    } catch (err) {
      throw new AuthenticationConfigError(`${source}: line ${lineAt(text, match.index!)}: the certificate does not parse: ${(err as Error).message}`)
    }
    pem += block
  }
  if (certs.length === 0) throw new AuthenticationConfigError(`${source}: data does not contain any valid RSA or ECDSA certificates`)
  return { source, certs, pem }
}

/** Reads --client-ca-file or --requestheader-client-ca-file; errors name the option and the file. */
export function loadCaBundle(file: string, option: string): CaBundle {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    const why = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message
    throw new AuthenticationConfigError(`${option}: unable to load client CA file "${file}": open ${file}: ${why}`)
  }
  try {
    return parseCaBundle(text, `${option}: unable to load client CA file "${file}"`)
  } catch (err) {
    throw err instanceof AuthenticationConfigError ? err : new AuthenticationConfigError(`${option}: ${file}: ${(err as Error).message}`)
  }
}

/** Several bundles as one set of authorities (the same certificate once). */
export function mergeBundles(bundles: readonly CaBundle[]): CaBundle | undefined {
  if (bundles.length === 0) return undefined
  const seen = new Set<string>()
  const certs: X509Certificate[] = []
  let pem = ''
  for (const bundle of bundles) {
    for (const cert of bundle.certs) {
      if (seen.has(cert.fingerprint256)) continue
      seen.add(cert.fingerprint256)
      certs.push(cert)
      pem += cert.toString().replace(/\r\n/g, '\n')
    }
  }
  return { source: bundles.map((b) => b.source).join(', '), certs, pem }
}

/** The TLS socket a request arrived on (HTTP/1.1 directly, HTTP/2 through its session). */
export function tlsSocketOf(req: Request): TLSSocket | undefined {
  const stream = (req as Http2ServerRequest).stream
  const socket = (stream?.session?.socket ?? req.socket) as TLSSocket | undefined
  return socket && typeof socket.getPeerCertificate === 'function' ? socket : undefined
}

interface PeerCertificate {
  raw?: Buffer
  issuerCertificate?: PeerCertificate
}

const peerChains = new WeakMap<object, X509Certificate[]>()

/** The certificates the client presented, leaf first (empty when none); read once per connection. */
export function peerCertificates(req: Request): X509Certificate[] {
  const socket = tlsSocketOf(req)
  if (!socket) return []
  const cached = peerChains.get(socket)
  if (cached) return cached
  const chain: X509Certificate[] = []
  let peer = socket.getPeerCertificate(true) as PeerCertificate | null
  const seen = new Set<PeerCertificate>()
  while (peer && peer.raw && !seen.has(peer)) {
    seen.add(peer)
    chain.push(new X509Certificate(peer.raw))
    peer = peer.issuerCertificate ?? null
  }
  peerChains.set(socket, chain)
  return chain
}

function validAt(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo)
}

function allowsClientAuth(cert: X509Certificate): boolean {
  const usages = cert.keyUsage
  return usages === undefined || usages.length === 0 || usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE)
}

function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey)
  } catch {
    return false
  }
}

/** Go's certificateIdentifier, for the log line of a refused certificate. */
function describe(cert: X509Certificate): string {
  return `SN=${BigInt(`0x${cert.serialNumber}`).toString()}, subject=${cert.subject.replace(/\n/g, ', ')}`
}

/**
 * Verifies a presented chain against the authorities, as Go's x509 Verify with the client
 * authentication usage: returns the chain up to a trusted authority, or throws with Go's reason.
 */
export function verifyClientChain(presented: readonly X509Certificate[], roots: readonly X509Certificate[], now = Date.now()): X509Certificate[] {
  const [leaf, ...intermediates] = presented
  if (!leaf) throw new AuthenticationError('no certificate presented')
  const fail = (reason: string) => new AuthenticationError(`verifying certificate ${describe(leaf)} failed: x509: ${reason}`)
  if (!validAt(leaf, now)) {
    const after = now > Date.parse(leaf.validTo)
    throw fail(`certificate has expired or is not yet valid: current time ${new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z')} is ${after ? `after ${new Date(leaf.validTo).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : `before ${new Date(leaf.validFrom).toISOString().replace(/\.\d{3}Z$/, 'Z')}`}`)
  }
  let incompatibleUsage = false
  const build = (chain: X509Certificate[]): X509Certificate[] | undefined => {
    const cert = chain[chain.length - 1]!
    if (!allowsClientAuth(cert)) {
      incompatibleUsage = true
      return undefined
    }
    if (roots.some((root) => root.fingerprint256 === cert.fingerprint256)) return chain
    if (chain.length > 8) return undefined
    for (const root of roots) {
      if (root.ca && validAt(root, now) && signedBy(cert, root)) {
        if (!allowsClientAuth(root)) {
          incompatibleUsage = true
          continue
        }
        return [...chain, root]
      }
    }
    for (const next of intermediates) {
      if (chain.includes(next) || !next.ca || !validAt(next, now) || !signedBy(cert, next)) continue
      const found = build([...chain, next])
      if (found) return found
    }
    return undefined
  }
  const chain = build([leaf])
  if (chain) return chain
  throw fail(incompatibleUsage ? 'certificate specifies an incompatible key usage' : 'certificate signed by unknown authority')
}

/**
 * The subject's last CommonName and its Organizations, in order, as Go's pkix.Name reads them
 * (from the DER: loading a certificate library for this costs a tenth of the server's start-up).
 */
export function subjectOf(cert: X509Certificate): { commonName: string; organizations: string[] } {
  const { commonNames, organizations } = subjectFromDer(cert.raw)
  return { commonName: commonNames[commonNames.length - 1] ?? '', organizations }
}

/** The credential id the reference puts in the user's extra: `X509SHA256=<hex of the DER's SHA-256>`. */
export function certificateCredentialId(cert: X509Certificate): string {
  return `X509SHA256=${createHash('sha256').update(cert.raw).digest('hex')}`
}

/** A bundle, or a provider of the bundle in effect now (a CA file reloaded while running). */
export type Authorities = CaBundle | { current(): CaBundle }

export function currentAuthorities(authorities: Authorities): CaBundle {
  return 'current' in authorities ? authorities.current() : authorities
}

export async function x509Authenticator(authorities: Authorities): Promise<Authenticator> {
  // One verification per connection and set of authorities: the chain, the user it maps to, and
  // the times between which every certificate of the chain is valid (read once: the getters and
  // Date.parse of each certificate's dates cost ~35 µs a request when read for every request).
  type Outcome = ({ chain: X509Certificate[]; user: UserInfo | null; notBefore: number; notAfter: number } | { error: AuthenticationError }) & { against: CaBundle }
  const verified = new WeakMap<X509Certificate, Outcome>()
  return {
    name: 'x509',
    authenticate(req) {
      const presented = peerCertificates(req)
      if (presented.length === 0) return null
      const leaf = presented[0]!
      const now = Date.now()
      const bundle = currentAuthorities(authorities)
      let outcome = verified.get(leaf)
      if (!outcome || outcome.against !== bundle || ('chain' in outcome && (now < outcome.notBefore || now > outcome.notAfter))) {
        try {
          const chain = verifyClientChain(presented, bundle.certs, now)
          const { commonName, organizations } = subjectOf(leaf)
          const user = commonName === '' ? null : { name: commonName, groups: organizations, extra: { [CREDENTIAL_ID_KEY]: [certificateCredentialId(leaf)] } }
          let notBefore = -Infinity
          let notAfter = Infinity
          for (const c of chain) {
            notBefore = Math.max(notBefore, Date.parse(c.validFrom))
            notAfter = Math.min(notAfter, Date.parse(c.validTo))
          }
          outcome = { chain, user, notBefore, notAfter, against: bundle }
        } catch (err) {
          // Refusals that depend on the time are not remembered.
          outcome = { error: err as AuthenticationError, against: bundle }
          if (!/expired or is not yet valid/.test((err as Error).message)) verified.set(leaf, outcome)
          throw err
        }
        verified.set(leaf, outcome)
      }
      if ('error' in outcome) throw outcome.error
      // A copy: later links of the chain (the group adder, impersonation) must not change the cached one.
      return outcome.user ? { user: copyOfUser(outcome.user) } : null
    },
  }
}
