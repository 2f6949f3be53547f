/**
 * An issuer's keys, found as go-oidc finds them: the discovery document at
 * `<issuer>/.well-known/openid-configuration` (or the configured discoveryURL), whose `issuer`
 * must be the configured one, then its `jwks_uri`. Everything over HTTPS, trusting the
 * configured certificate authority or else the host's roots. Keys are fetched again when a
 * token names a key id the cached set lacks (key rotation), at most once per refresh interval.
 */
import { request } from 'node:https'
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'

const WELL_KNOWN = '/.well-known/openid-configuration'
const FETCH_TIMEOUT_MS = 30_000
/** The least time between two fetches of the key set caused by unknown key ids. */
const MIN_REFRESH_MS = 5_000
const MAX_BODY_BYTES = 1 << 20

export interface IssuerEndpoints {
  /** The configured issuer URL. */
  issuer: string
  /** The configured discovery URL, when it is not the issuer's well-known path. */
  discoveryURL?: string
  /** PEM bundle; undefined: the host's root CAs. */
  certificateAuthority?: string
}

function getJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      reject(new Error(`invalid URL ${JSON.stringify(url)}`))
      return
    }
    if (parsed.protocol !== 'https:') {
      reject(new Error(`${url}: only https URLs are fetched`))
      return
    }
    const req = request(parsed, { method: 'GET', ca, timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) req.destroy(new Error(`${url}: response larger than ${MAX_BODY_BYTES} bytes`))
        else chunks.push(chunk)
      })
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        if ((res.statusCode ?? 0) !== 200) {
          reject(new Error(`${res.statusCode} ${res.statusMessage ?? ''}: ${body}`.trim()))
          return
        }
        try {
          resolve(JSON.parse(body))
        } catch (err) {
          reject(new Error(`failed to decode provider discovery object: ${(err as Error).message}`))
        }
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`Get ${JSON.stringify(url)}: context deadline exceeded`)))
    req.on('error', (err) => reject(new Error(`Get ${JSON.stringify(url)}: ${err.message}`)))
    req.end()
  })
}

/** One issuer's discovery result and key set. */
export class OidcProvider {
  private keys: JWTVerifyGetKey | undefined
  private kids = new Set<string>()
  private fetching: Promise<void> | undefined
  private lastFetch = 0

  private constructor(
    private readonly endpoints: IssuerEndpoints,
    readonly jwksUri: string,
  ) {}

  /** oidc.NewProvider: reads the discovery document and the key set; throws with go-oidc's wording. */
  static async discover(endpoints: IssuerEndpoints): Promise<OidcProvider> {
    const wellKnown = endpoints.discoveryURL || `${endpoints.issuer.replace(/\/+$/, '')}${WELL_KNOWN}`
    const doc = (await getJson(wellKnown, endpoints.certificateAuthority)) as { issuer?: unknown; jwks_uri?: unknown }
    if (typeof doc !== 'object' || doc === null) throw new Error('failed to decode provider discovery object')
    if (doc.issuer !== endpoints.issuer) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(endpoints.issuer)} got ${JSON.stringify(doc.issuer)}`)
    }
    if (typeof doc.jwks_uri !== 'string' || doc.jwks_uri === '') throw new Error('oidc: provider discovery document has no jwks_uri')
    const provider = new OidcProvider(endpoints, doc.jwks_uri)
    await provider.refresh()
    return provider
  }

  private refresh(): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const set = (await getJson(this.jwksUri, this.endpoints.certificateAuthority)) as JSONWebKeySet
        if (!set || !Array.isArray(set.keys)) throw new Error('oidc: failed to decode keys: no "keys" array')
        this.keys = createLocalJWKSet(set)
        this.kids = new Set(set.keys.map((key) => key.kid).filter((kid): kid is string => typeof kid === 'string'))
        this.lastFetch = Date.now()
      } finally {
        this.fetching = undefined
      }
    })()
    return this.fetching
  }

  /** The key lookup for jose, fetching the set again for a key id it has not seen. */
  async keyLookup(kid: string | undefined): Promise<JWTVerifyGetKey> {
    if (kid !== undefined && !this.kids.has(kid) && Date.now() - this.lastFetch >= MIN_REFRESH_MS) {
      try {
        await this.refresh()
      } catch {
        // Keep the keys we have; the verification reports the missing key.
      }
    }
    if (!this.keys) throw new Error('oidc: no keys')
    return this.keys
  }
}
