/**
 * This server's identity among the servers on one store, as the reference names it
 * (staging/src/k8s.io/apiserver/pkg/server/config.go, NewConfig): `apiserver-` and the
 * lower-case, unpadded base32 of the first 16 bytes of the SHA-256 of the host name and the
 * component name, each prefixed with its 16-bit length. The identity Lease in kube-system
 * has this name; its holder is the name and a UUID of this run.
 */
import { createHash, randomUUID } from 'node:crypto'
import os from 'node:os'

/** The label of identity leases and the component of this server (pkg/controlplane/apiserver/server.go). */
export const IDENTITY_LEASE_LABEL = 'apiserver.kubernetes.io/identity'
export const KUBE_APISERVER = 'kube-apiserver'
/** The label naming the host of an identity lease (k8s.io/api/core/v1 LabelHostname). */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname'
/** The annotation with the address peers proxy to (k8s.io/api/core/v1 AnnotationPeerAdvertiseAddress). */
export const PEER_ADVERTISE_ADDRESS_ANNOTATION = 'kubernetes.io/peer-advertise-address'

/**
 * The host name the identity is made from. `CLIENT_TEST_HOSTNAME` replaces it so that a test
 * can run two servers on one machine with two identities (the reference's integration tests
 * set the identity itself); documented in docs/architecture.md with the other test knobs.
 */
export function serverHostname(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLIENT_TEST_HOSTNAME || os.hostname()
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 without padding (Go's base32.StdEncoding.WithPadding(NoPadding)). */
export function base32NoPadding(bytes: Uint8Array): string {
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31]
  return out
}

/** A cryptobyte AddUint16LengthPrefixed field. */
function lengthPrefixed(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8')
  const length = Buffer.alloc(2)
  length.writeUInt16BE(bytes.length)
  return Buffer.concat([length, bytes])
}

/** The server's identity (the identity Lease's name) on `hostname`. */
export function apiserverId(hostname: string): string {
  const hash = createHash('sha256').update(Buffer.concat([lengthPrefixed(hostname), lengthPrefixed(KUBE_APISERVER)])).digest()
  return `apiserver-${base32NoPadding(hash.subarray(0, 16)).toLowerCase()}`
}

/** The identity lease's holder: the identity and a UUID of this run. */
export function identityHolder(id: string): string {
  return `${id}_${randomUUID()}`
}

/** host:port as Go's net.JoinHostPort writes it (brackets around an IPv6 address). */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

/**
 * The address peers proxy to (pkg/controlplane/apiserver/peer.go getPeerAddress): the
 * advertised peer IP and port when both are given, else the advertise address and secure port.
 */
export function peerAddress(options: { peerAdvertiseIp?: string; peerAdvertisePort?: string; advertiseAddress: string; securePort: number }): string {
  if (options.peerAdvertiseIp && options.peerAdvertisePort) return joinHostPort(options.peerAdvertiseIp, options.peerAdvertisePort)
  return joinHostPort(options.advertiseAddress, options.securePort)
}

/** Who this server is among its peers: what the identity lease, the endpoint lease and the proxy share. */
export interface ApiserverIdentity {
  /** The identity Lease's name (APIServerID). */
  readonly id: string
  /** The identity Lease's holderIdentity: the id and a UUID of this run. */
  readonly holder: string
  readonly hostname: string
  /** Where peers proxy to (host:port). */
  readonly peerAddress: string
}

export function apiserverIdentity(
  options: { peerAdvertiseIp?: string; peerAdvertisePort?: string; securePort: number },
  advertiseAddress: string,
  env: NodeJS.ProcessEnv = process.env,
): ApiserverIdentity {
  const hostname = serverHostname(env)
  const id = apiserverId(hostname)
  return { id, holder: identityHolder(id), hostname, peerAddress: peerAddress({ ...options, advertiseAddress }) }
}
