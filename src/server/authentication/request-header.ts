/**
 * The front proxy (reference: request/headerrequest wrapped in x509.NewDynamicCAVerifier):
 * a request that comes with a client certificate chaining to --requestheader-client-ca-file
 * (and, when --requestheader-allowed-names is given, whose CommonName is one of them) is the
 * user named in the first non-empty --requestheader-username-headers header, with the uid of
 * --requestheader-uid-headers, the groups of every --requestheader-group-headers value and
 * the extra of the --requestheader-extra-headers-prefix headers (the rest of the header
 * name, lower-cased and %-decoded, is the key). The headers are removed once read. Without
 * such a certificate the headers are ignored; a certificate that fails the check is refused.
 */
import type { Request } from '../http/types.js'
import { AuthenticationError, type AuthenticationResponse, type Authenticator } from './authenticator.js'
import { type Authorities, currentAuthorities, peerCertificates, verifyClientChain } from './x509.js'
import { loadX509 } from '../tls/generate.js'

export interface RequestHeaderOptions {
  /** --requestheader-client-ca-file's bundle, or its reloading provider. */
  authorities: Authorities
  /** --requestheader-allowed-names; empty: any certificate of the authorities. */
  allowedNames: string[]
  usernameHeaders: string[]
  uidHeaders: string[]
  groupHeaders: string[]
  extraHeaderPrefixes: string[]
}

/** Every value of the request's headers, by lower-case name, in the order received. */
function headerValues(req: Request): Map<string, string[]> {
  const raw = req.rawHeaders
  const out = new Map<string, string[]>()
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    // HTTP/2 pseudo-headers are not headers the proxy set.
    if (name.startsWith(':')) continue
    const list = out.get(name) ?? []
    list.push(raw[i + 1]!)
    out.set(name, list)
  }
  return out
}

function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded)
  } catch {
    return encoded
  }
}

export function requestHeaderAuthenticator(options: RequestHeaderOptions): Authenticator {
  const lower = (names: string[]) => names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '')
  const usernameHeaders = lower(options.usernameHeaders)
  const uidHeaders = lower(options.uidHeaders)
  const groupHeaders = lower(options.groupHeaders)
  const prefixes = lower(options.extraHeaderPrefixes)
  const allowed = new Set(options.allowedNames)
  const x509 = loadX509()
  return {
    name: 'request header',
    // The no-certificate case answers at once: most requests carry none.
    authenticate(req) {
      const presented = peerCertificates(req)
      if (presented.length === 0) return null
      return fromProxy(req, presented)
    },
  }

  async function fromProxy(req: Request, presented: ReturnType<typeof peerCertificates>): Promise<AuthenticationResponse | null> {
    {
      verifyClientChain(presented, currentAuthorities(options.authorities).certs)
      if (allowed.size > 0) {
        const cns = new (await x509).X509Certificate(presented[0]!.raw).subjectName.getField('CN')
        const cn = cns[cns.length - 1] ?? ''
        if (!allowed.has(cn)) throw new AuthenticationError(`x509: subject with cn=${cn} is not in the allowed list`)
      }
      const headers = headerValues(req)
      const first = (names: string[]) => {
        for (const name of names) {
          const value = headers.get(name)?.[0]
          if (value) return value
        }
        return ''
      }
      const name = first(usernameHeaders)
      if (name === '') return null
      const uid = first(uidHeaders)
      const groups = groupHeaders.flatMap((h) => (headers.get(h) ?? []).filter((v) => v !== ''))
      const extra: Record<string, string[]> = {}
      for (const prefix of prefixes) {
        for (const [header, values] of headers) {
          if (!header.startsWith(prefix)) continue
          const key = unescapeExtraKey(header.slice(prefix.length))
          ;(extra[key] ??= []).push(...values)
        }
      }
      // The credentials are not passed on to anything later in the server.
      for (const header of Object.keys(req.headers)) {
        const h = header.toLowerCase()
        if (usernameHeaders.includes(h) || uidHeaders.includes(h) || groupHeaders.includes(h) || prefixes.some((p) => h.startsWith(p))) delete req.headers[header]
      }
      return { user: { name, ...(uid ? { uid } : {}), groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) } }
    }
  }
}
