/**
 * Network and TLS failures of a request, told the way kubectl tells them: Go's error text
 * for the failure (`dial tcp 127.0.0.1:1: connect: connection refused`,
 * `tls: failed to verify certificate: x509: certificate signed by unknown authority`,
 * `net/http: request canceled (Client.Timeout exceeded while awaiting headers)`), inside
 * kubectl's sentence (`Unable to connect to the server: <detail>`, or for a refused
 * connection `The connection to the server <host> was refused - did you specify the right
 * host or port?`).
 */
import net from 'node:net'
import { UnreachableError, type UnreachableKind } from './errors.js'

/** The parts of a got RequestError (or a plain Node error) the mapping reads. */
interface FailedRequest {
  code?: string
  message: string
  name?: string
  /** got's TimeoutError: the phase whose limit passed. */
  event?: string
  timings?: { socket?: number; lookup?: number; connect?: number; secureConnect?: number; response?: number }
  cause?: unknown
  /** got's Request: whether the request went out on a kept-alive connection. */
  request?: { reusedSocket?: boolean }
}

interface NodeNetError extends Error {
  code?: string
  address?: string
  port?: number
  hostname?: string
  reason?: string
  host?: string
  cert?: { subjectaltname?: string; subject?: { CN?: string | string[] } }
}

// Verification failures that Go reports as an unknown authority.
const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
])

// TLS alerts by number, with crypto/tls's names: the server's alert is reported as
// `remote error: tls: <name>`.
const ALERTS: Record<number, string> = {
  0: 'close notify', 10: 'unexpected message', 20: 'bad record MAC', 21: 'decryption failed', 22: 'record overflow',
  30: 'decompression failure', 40: 'handshake failure', 42: 'bad certificate', 43: 'unsupported certificate',
  44: 'revoked certificate', 45: 'expired certificate', 46: 'unknown certificate', 47: 'illegal parameter',
  48: 'unknown certificate authority', 49: 'access denied', 50: 'error decoding message', 51: 'error decrypting message',
  60: 'export restriction', 70: 'protocol version not supported', 71: 'insufficient security level', 80: 'internal error',
  86: 'inappropriate fallback', 90: 'user canceled', 100: 'no renegotiation', 109: 'missing extension',
  110: 'unsupported extension', 111: 'certificate unobtainable', 112: 'unrecognized name',
  113: 'bad certificate status response', 114: 'bad certificate hash value', 115: 'unknown PSK identity',
  116: 'certificate required', 120: 'no application protocol',
}

// OpenSSL's alert error codes, when the message does not carry the alert number.
const ALERT_CODES: Record<string, number> = {
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 40,
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 42,
  ERR_SSL_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE: 43,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_REVOKED: 44,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED: 45,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN: 46,
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 48,
  ERR_SSL_TLSV1_ALERT_ACCESS_DENIED: 49,
  ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR: 51,
  ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: 70,
  ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR: 80,
  ERR_SSL_TLSV1_UNRECOGNIZED_NAME: 112,
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED: 116,
  ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL: 120,
}

/**
 * Go's `host:port` for an address (`[::1]:6443` for IPv6): as net.JoinHostPort, a host with a
 * colon is bracketed (cheaper than Node's isIPv6, whose pattern costs milliseconds on first use).
 */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}

/** The authority of a URL as written (`127.0.0.1:6443`), for kubectl's refused sentence. */
function authorityOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url)
  return m ? m[1] : url
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80')
}

export function toUnreachable(failure: FailedRequest, requestUrl: string): UnreachableError {
  const cause = (failure.cause ?? failure) as NodeNetError
  const code = failure.code ?? cause.code ?? ''
  const url = new URL(requestUrl)
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const dialTarget = joinHostPort(cause.address ?? hostname, cause.port ?? defaultPort(url))
  const make = (kind: UnreachableKind, detail: string, message?: string) =>
    new UnreachableError(kind, detail, requestUrl, { message, cause: failure })

  if (failure.name === 'TimeoutError' || (code === 'ETIMEDOUT' && failure.event)) {
    const t = failure.timings ?? {}
    switch (failure.event) {
      case 'lookup':
        return make('timeout', `dial tcp: lookup ${hostname}: i/o timeout`)
      case 'connect':
        return make('timeout', `dial tcp ${joinHostPort(hostname, defaultPort(url))}: i/o timeout`)
      case 'secureConnect':
        return make('timeout', 'net/http: TLS handshake timeout')
    }
    if (t.response !== undefined) return make('timeout', 'context deadline exceeded (Client.Timeout exceeded while reading body)')
    const connected = failure.request?.reusedSocket || (url.protocol === 'https:' ? t.secureConnect !== undefined : t.connect !== undefined)
    if (!connected) return make('timeout', 'net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)')
    return make('timeout', 'net/http: request canceled (Client.Timeout exceeded while awaiting headers)')
  }
  switch (code) {
    case 'ECONNREFUSED': {
      const detail = `dial tcp ${dialTarget}: connect: connection refused`
      return make('refused', detail, `The connection to the server ${authorityOf(requestUrl)} was refused - did you specify the right host or port?`)
    }
    case 'ENOTFOUND':
      return make('dns', `dial tcp: lookup ${hostname}: no such host`)
    case 'EAI_AGAIN':
      return make('dns', `dial tcp: lookup ${hostname}: temporary failure in name resolution`)
    case 'ETIMEDOUT':
      return make('timeout', `dial tcp ${dialTarget}: connect: connection timed out`)
    case 'EHOSTUNREACH':
      return make('other', `dial tcp ${dialTarget}: connect: no route to host`)
    case 'ENETUNREACH':
      return make('other', `dial tcp ${dialTarget}: connect: network is unreachable`)
    case 'ECONNRESET':
      // Node's "socket hang up": the server closed the connection before answering (Go: EOF).
      return make('reset', /hang up/i.test(cause.message) ? 'EOF' : `read tcp ${dialTarget}: read: connection reset by peer`)
    case 'EPIPE':
      return make('reset', `write tcp ${dialTarget}: write: broken pipe`)
  }
  const tlsDetail = tlsFailure(code, cause)
  if (tlsDetail) return make('tls', tlsDetail)
  return make('other', cause.message || failure.message)
}

function tlsFailure(code: string, err: NodeNetError): string | undefined {
  const verify = (why: string) => `tls: failed to verify certificate: x509: ${why}`
  if (UNKNOWN_AUTHORITY.has(code)) return verify('certificate signed by unknown authority')
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return verify('certificate has expired or is not yet valid')
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return verify(hostnameMismatch(err))
  const alert = /SSL alert number (\d+)/.exec(err.message)
  const alertNumber = alert ? Number(alert[1]) : ALERT_CODES[code]
  if (alertNumber !== undefined) return `remote error: tls: ${ALERTS[alertNumber] ?? `alert(${alertNumber})`}`
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/.test(err.message)) return 'http: server gave HTTP response to HTTPS client'
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code === 'EPROTO') return `tls: ${err.reason ?? err.message}`
  if (/^[A-Z_]+$/.test(code) && (code.startsWith('CERT_') || code.includes('_CERT'))) return verify(err.message)
  return undefined
}

/** Go's x509.HostnameError text, from the peer certificate Node attaches to the error. */
function hostnameMismatch(err: NodeNetError): string {
  const host = err.host ?? ''
  const sans = (err.cert?.subjectaltname ?? '').split(/,\s*/).filter(Boolean)
  const dns = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4))
  const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice(11))
  const cn = err.cert?.subject?.CN
  if (sans.length === 0 && (Array.isArray(cn) ? cn.includes(host) : cn === host)) {
    return 'certificate relies on legacy Common Name field, use SANs instead'
  }
  if (net.isIP(host)) {
    if (ips.length === 0) return `cannot validate certificate for ${host} because it doesn't contain any IP SANs`
    return `certificate is valid for ${ips.join(', ')}, not ${host}`
  }
  if (dns.length === 0) return `certificate is not valid for any names, but wanted to match ${host}`
  return `certificate is valid for ${dns.join(', ')}, not ${host}`
}
