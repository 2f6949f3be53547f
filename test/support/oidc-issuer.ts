/**
 * A test OpenID Connect issuer: a CA and a 127.0.0.1 serving certificate made for the run, an
 * HTTPS server with the discovery document and the JWKS, and ID tokens signed with its keys
 * (or with a stranger's, for the wrong-signature cases). Stopped with `close()`.
 */
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'

import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../src/server/tls/generate.js'

export interface TestTls {
  caPem: string
  certPem: string
  keyPem: string
}

/** A CA and a server certificate for 127.0.0.1 signed by it. */
export async function testTls(name = 'test-issuer'): Promise<TestTls> {
  const now = Date.now()
  const notBefore = new Date(now - 3_600_000)
  const notAfter = new Date(now + 86_400_000)
  const caKey = await generateKey('ecdsa')
  const caPem = await createCaCertificate({ key: caKey, commonName: `${name}-ca`, notBefore, notAfter })
  const serverKey = await generateKey('ecdsa')
  const certPem = await createLeafCertificate({
    ca: { certPem: caPem, privateKey: caKey.privateKey },
    publicKey: serverKey.publicKey,
    commonName: name,
    dns: ['localhost'],
    ips: ['127.0.0.1'],
    notBefore,
    notAfter,
  })
  return { caPem, certPem, keyPem: privateKeyPem(serverKey.privateKey) }
}

export interface SigningKey {
  kid: string
  alg: string
  privateKey: import("node:crypto").webcrypto.CryptoKey
  publicJwk: JWK
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

export class OidcIssuer {
  /** Requests served, by path. */
  readonly hits: Record<string, number> = {}
  /** The keys the JWKS publishes; change it to rotate. */
  published: SigningKey[]

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly tls: TestTls,
    readonly key: SigningKey,
  ) {
    this.published = [key]
  }

  /** Serves discovery and keys; `issuerPath` is appended to https://127.0.0.1:<port>. */
  static async start(options: { issuerPath?: string; tls?: TestTls } = {}): Promise<OidcIssuer> {
    const tls = options.tls ?? (await testTls())
    const key = await signingKey('key-1')
    let issuer: OidcIssuer | undefined
    const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname
      const self = issuer!
      self.hits[path] = (self.hits[path] ?? 0) + 1
      const base = new URL(self.url).pathname.replace(/\/$/, '')
      if (path === `${base}/.well-known/openid-configuration`) {
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ issuer: self.url, jwks_uri: `${self.url}/keys`, id_token_signing_alg_values_supported: ['RS256'] }))
      } else if (path === `${base}/keys`) {
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ keys: self.published.map((k) => k.publicJwk) }))
      } else {
        res.statusCode = 404
        res.end('not found')
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    issuer = new OidcIssuer(server, `https://127.0.0.1:${port}${options.issuerPath ?? ''}`, tls, key)
    return issuer
  }

  /** An ID token: defaults (iss, aud, sub, iat, exp in 10 minutes) overridden by `claims`. */
  async token(claims: JWTPayload, options: { key?: SigningKey; expiresIn?: number } = {}): Promise<string> {
    const key = options.key ?? this.key
    const now = Math.floor(Date.now() / 1000)
    const payload: JWTPayload = { iss: this.url, aud: 'client-a', sub: 'subject-1', iat: now, exp: now + (options.expiresIn ?? 600), ...claims }
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name]
    return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey)
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }
}
