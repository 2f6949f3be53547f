/**
 * --service-account-issuer: the issuer's OIDC discovery document at
 * /.well-known/openid-configuration and its key set at /openid/v1/jwks, as the reference
 * serves them, so that relying parties can verify service account tokens.
 *
 * Keys come from the --service-account-key-file files (every RSA or ECDSA key in them,
 * public or private, or a certificate's; other PEM blocks are skipped, as the reference
 * does). Each is published as the reference's JWK: `use: sig`, the algorithm of its type
 * (RS256; ES256/ES384/ES512 by curve) and a `kid` that is the unpadded base64url SHA-256 of
 * its DER SubjectPublicKeyInfo. Both documents are built once, at start-up; the bytes match
 * the reference's (Go's JSON field order and escaping).
 *
 * A key file that cannot be read or holds no usable key makes the factory throw an Error
 * naming the file. An issuer or JWKS URI the OIDC rules reject (not https, a query, a
 * fragment) throws an OpenIDMetadataError instead: the reference logs that and serves
 * neither document rather than failing to start.
 */
import { X509Certificate, createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Mux } from '../http/mux.js'
import { httpError } from '../http/respond.js'
import type { Handler } from '../http/types.js'

export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration'
export const JWKS_PATH = '/openid/v1/jwks'
const CACHE_CONTROL = 'public, max-age=3600'
const JWKS_CONTENT_TYPE = 'application/jwk-set+json'

interface ServiceAccountIssuerOptions {
  /** --service-account-issuer; the first is the one published. */
  issuers: readonly string[]
  /** --service-account-jwks-uri. */
  jwksUri?: string
  /** The server's external address: host or host:port (--external-hostname, with the port if not 443). */
  externalHost?: string
  /** --service-account-key-file. */
  keyFiles: readonly string[]
  /** The external signer's keys (--service-account-signing-endpoint), published instead of the files'. */
  externalKeys?: ExternalPublishedKeys
}

/** The external signer's key cache as the documents read it: followed as it changes. */
export interface ExternalPublishedKeys {
  keys(): ReadonlyArray<{ kid: string; key: KeyObject; excludeFromOidcDiscovery: boolean }>
  /** Seconds until the cache fetches again: the documents' max-age. */
  maxAgeSeconds(): number
  onChange(listener: () => void): void
}

/** The issuer or JWKS URI does not make an OIDC provider; the reference then serves neither document. */
export class OpenIDMetadataError extends Error {
  override name = 'OpenIDMetadataError'
}

/** A published key, fields in go-jose's order. */
interface PublishedJwk {
  use: 'sig'
  kty: string
  kid: string
  crv?: string
  alg: string
  x?: string
  y?: string
  n?: string
  e?: string
}

const EC_ALGORITHMS: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }

/** Go's encoding/json string escaping on top of JSON.stringify: <, >, & and the line separators. */
function goJSON(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** The reference's key id: base64url (unpadded) of the SHA-256 of the DER SubjectPublicKeyInfo. */
export function keyId(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('base64url')
}

/** The key as the reference publishes it; undefined for a key type it has no algorithm for. */
function publishedJwk(key: KeyObject, source = 'key', givenKid?: string): PublishedJwk | undefined {
  const type = key.asymmetricKeyType
  if (type !== 'rsa' && type !== 'ec') return undefined
  const jwk = key.export({ format: 'jwk' }) as JsonWebKey
  // Re-read from the JWK so the SPKI hashed for the kid has the uncompressed point Go writes.
  const canonical = createPublicKey({ key: jwk, format: 'jwk' })
  const kid = givenKid ?? keyId(canonical)
  if (type === 'rsa') return { use: 'sig', kty: 'RSA', kid, alg: 'RS256', n: jwk.n, e: jwk.e }
  const alg = jwk.crv ? EC_ALGORITHMS[jwk.crv] : undefined
  if (!alg) throw new Error(`${source}: unknown elliptic curve ${jwk.crv ?? key.asymmetricKeyDetails?.namedCurve ?? '?'}, must be 256, 384, or 521`)
  return { use: 'sig', kty: 'EC', kid, crv: jwk.crv, alg, x: jwk.x, y: jwk.y }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g

/** The public keys in PEM data, from public keys, private keys and certificates alike. */
export function publicKeysFromPEM(data: string): KeyObject[] {
  const keys: KeyObject[] = []
  for (const match of data.matchAll(PEM_BLOCK)) {
    const [block, label] = match
    try {
      const key = label === 'CERTIFICATE' ? new X509Certificate(block).publicKey : createPublicKey(block)
      if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec') keys.push(key)
    } catch {
      // Not a key the reference reads (EC PARAMETERS, an encrypted key, …): skipped.
    }
  }
  return keys
}

function readServiceAccountKeys(files: readonly string[]): PublishedJwk[] {
  const out: PublishedJwk[] = []
  const seen = new Set<string>()
  for (const file of files) {
    let data: string
    try {
      data = readFileSync(file, 'utf8')
    } catch (err) {
      throw new Error(`error reading service account key file ${file}: ${(err as Error).message}`)
    }
    const keys = publicKeysFromPEM(data)
    if (keys.length === 0) throw new Error(`error reading service account key file ${file}: data does not contain any valid RSA or ECDSA public keys`)
    for (const key of keys) {
      const jwk = publishedJwk(key, `service account key file ${file}`)
      // The same key given twice (a private key and its public half) is published once.
      if (jwk && !seen.has(jwk.kid)) {
        seen.add(jwk.kid)
        out.push(jwk)
      }
    }
  }
  return out
}

function requireHttps(what: string, raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch (err) {
    throw new OpenIDMetadataError(`could not parse ${what}: ${(err as Error).message}`)
  }
  if (url.protocol !== 'https:') throw new OpenIDMetadataError(`${what} must use https scheme, got: ${raw}`)
  return url
}

/** jwks_uri: the flag, else https://<external address>/openid/v1/jwks, else the issuer's own. */
export function jwksUri(issuer: string, options: Pick<ServiceAccountIssuerOptions, 'jwksUri' | 'externalHost'>): string {
  if (options.jwksUri) {
    requireHttps('jwksURI', options.jwksUri)
    return options.jwksUri
  }
  if (options.externalHost) {
    const built = `https://${options.externalHost}${JWKS_PATH}`
    let parsed: URL | undefined
    try {
      parsed = new URL(built)
    } catch {
      parsed = undefined
    }
    if (!parsed || parsed.pathname !== JWKS_PATH || parsed.search || parsed.hash || parsed.username || parsed.host === '') {
      throw new OpenIDMetadataError(
        `attempted to build jwks_uri from external address ${options.externalHost}, but could not construct a valid URL`,
      )
    }
    return built
  }
  return `${issuer.replace(/\/+$/, '')}${JWKS_PATH}`
}

interface ServiceAccountIssuerDocuments {
  /** The discovery document, as served. */
  configuration: string
  /** The key set, as served. */
  keySet: string
  keys: PublishedJwk[]
}

/** The external signer's keys as published: those not excluded from discovery, under the signer's key ids. */
function externalJwks(source: ExternalPublishedKeys): PublishedJwk[] {
  const out: PublishedJwk[] = []
  for (const k of source.keys()) {
    if (k.excludeFromOidcDiscovery) continue
    const jwk = publishedJwk(k.key, `external signer key ${k.kid}`, k.kid)
    if (jwk) out.push(jwk)
  }
  return out
}

export function serviceAccountIssuerDocuments(options: ServiceAccountIssuerOptions): ServiceAccountIssuerDocuments {
  // Keys first: a key file that cannot be read is a start-up error whatever else is wrong.
  const keys = options.externalKeys ? externalJwks(options.externalKeys) : readServiceAccountKeys(options.keyFiles)
  const issuer = options.issuers[0]
  if (!issuer) throw new OpenIDMetadataError('empty issuer URL')
  const issuerURL = requireHttps('issuer URL', issuer)
  if (issuerURL.search) throw new OpenIDMetadataError(`issuer URL may not include a query, got: ${issuer}`)
  if (issuerURL.hash || issuer.includes('#')) throw new OpenIDMetadataError(`issuer URL may not include a fragment, got: ${issuer}`)
  const uri = jwksUri(issuer, options)
  if (keys.length === 0) throw new OpenIDMetadataError('no keys provided for validating keyset')
  const algs = [...new Set(keys.map((k) => k.alg))].sort()
  const configuration = goJSON({
    issuer,
    jwks_uri: uri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algs,
  })
  return { configuration, keySet: goJSON({ keys }), keys }
}

function serve(body: string | (() => { body: string; maxAgeSeconds: number }), contentType: string): Handler {
  const fixed = typeof body === 'string' ? Buffer.from(body) : undefined
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      httpError(res, 405, '405: Method Not Allowed')
      return
    }
    const current = typeof body === 'string' ? undefined : body()
    const bytes = fixed ?? Buffer.from(current!.body)
    res.setHeader('Content-Type', contentType)
    res.setHeader('Cache-Control', current ? `public, max-age=${current.maxAgeSeconds}` : CACHE_CONTROL)
    res.setHeader('Content-Length', bytes.length)
    res.statusCode = 200
    res.end(bytes)
  }
}

/**
 * Reads the keys and builds the two handlers, as [path, handler] pairs to mount exactly;
 * throws (see the module comment) when it cannot.
 */
export function serviceAccountIssuerHandlers(options: ServiceAccountIssuerOptions): Array<[path: string, handler: Handler]> {
  let documents = serviceAccountIssuerDocuments(options)
  const external = options.externalKeys
  if (external) {
    // Rebuilt when the signer's keys change; a set that no longer makes documents keeps the last one.
    external.onChange(() => {
      try {
        documents = serviceAccountIssuerDocuments(options)
      } catch {
        // Kept as it was.
      }
    })
    return [
      [OPENID_CONFIG_PATH, serve(() => ({ body: documents.configuration, maxAgeSeconds: external.maxAgeSeconds() }), 'application/json')],
      [JWKS_PATH, serve(() => ({ body: documents.keySet, maxAgeSeconds: external.maxAgeSeconds() }), JWKS_CONTENT_TYPE)],
    ]
  }
  return [
    [OPENID_CONFIG_PATH, serve(documents.configuration, 'application/json')],
    [JWKS_PATH, serve(documents.keySet, JWKS_CONTENT_TYPE)],
  ]
}

export function installServiceAccountIssuer(mux: Mux, options: ServiceAccountIssuerOptions): Mux {
  for (const [path, handler] of serviceAccountIssuerHandlers(options)) mux.handle(path, handler)
  return mux
}
