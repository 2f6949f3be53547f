/**
 * --service-account-signing-endpoint: service account tokens signed by an external process,
 * as the reference's externaljwt plugin. The server sends the payload (base64url, as the JWT's
 * second segment) to Sign and assembles the token from the header and signature returned,
 * after checking the header: only `alg`, `kid` and `typ`, `typ` JWT, a kid of 1 to 1024
 * characters, an algorithm the server verifies, and a key not excluded from OIDC discovery.
 *
 * setUpExternalSigner dials the signer, fills the key cache and reads the signer's metadata
 * before the server starts, with the reference's errors.
 */
import type { ExternalSignerClient } from './client.js'
import { goGrpcError } from './grpc-error.js'
import { ExternalKeyCache } from './key-cache.js'

const SIGNING_ALGORITHMS = new Set(['RS256', 'ES256', 'ES384', 'ES512'])
const KEY_SYNC_TIMEOUT_MS = 60_000
/** The reference's validation.MinTokenAgeSec. */
const MIN_TOKEN_AGE_SECONDS = 600

export class ExternalJwtSigner {
  constructor(
    private readonly client: ExternalSignerClient,
    readonly keyCache: ExternalKeyCache,
  ) {}

  /** The token of these claims (a JSON object), signed by the external signer. */
  async sign(payload: Record<string, unknown>): Promise<string> {
    const claims = Buffer.from(JSON.stringify(payload)).toString('base64url')
    let response
    try {
      response = await this.client.sign(claims)
    } catch (err) {
      throw new Error(`while signing jwt: ${goGrpcError(err)}`)
    }
    try {
      await this.checkHeader(response.header)
    } catch (err) {
      throw new Error(`while validating header: ${(err as Error).message}`)
    }
    if (response.signature.length === 0) throw new Error('empty signature returned')
    return `${response.header}.${claims}.${response.signature}`
  }

  private async checkHeader(encoded: string): Promise<void> {
    if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new Error('while unwrapping header: illegal base64 data')
    let header: unknown
    try {
      header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'))
    } catch (err) {
      throw new Error(`while parsing header JSON: ${(err as Error).message}`)
    }
    if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('while parsing header JSON: not an object')
    const unknown = Object.keys(header).find((k) => k !== 'alg' && k !== 'kid' && k !== 'typ')
    if (unknown !== undefined) throw new Error(`while parsing header JSON: json: unknown field ${JSON.stringify(unknown)}`)
    const { alg, kid, typ } = header as { alg?: unknown; kid?: unknown; typ?: unknown }
    if (typ !== 'JWT') throw new Error('bad type')
    if (typeof kid !== 'string' || kid.length === 0) throw new Error('key id missing')
    if (kid.length > 1024) throw new Error('key id longer than 1 kb')
    if (typeof alg !== 'string' || !SIGNING_ALGORITHMS.has(alg)) throw new Error(`bad signing algorithm ${JSON.stringify(typeof alg === 'string' ? alg : '')}`)
    for (const key of await this.keyCache.keysFor(kid)) {
      if (key.excludeFromOidcDiscovery) throw new Error(`key used for signing JWT (kid: ${kid}) is excluded from OIDC discovery docs`)
    }
  }
}

export interface ExternalSigning {
  signer: ExternalJwtSigner
  keyCache: ExternalKeyCache
  /** The signer's Metadata: the longest token it signs. */
  maxTokenExpirationSeconds: number
  close(): void
}

/** Dials the signer, fills the key cache and reads the metadata; errors carry the reference's text. */
export async function setUpExternalSigner(socketPath: string, onError: (message: string) => void): Promise<ExternalSigning> {
  const prefix = 'while setting up external-jwt-signer'
  const { dialExternalSigner } = await import('./client.js')
  const client = await dialExternalSigner(socketPath)
  const keyCache = new ExternalKeyCache(client, KEY_SYNC_TIMEOUT_MS, onError)
  try {
    await keyCache.initialFill()
  } catch (err) {
    client.close()
    throw new Error(`${prefix}: ${(err as Error).message}`)
  }
  let metadata
  try {
    metadata = await client.metadata(10_000)
  } catch (err) {
    client.close()
    throw new Error(`${prefix}: ${goGrpcError(err)}`)
  }
  if (metadata.maxTokenExpirationSeconds < MIN_TOKEN_AGE_SECONDS) {
    client.close()
    throw new Error(`max token life supported by external-jwt-signer (${metadata.maxTokenExpirationSeconds}s) is less than acceptable (min ${MIN_TOKEN_AGE_SECONDS}s)`)
  }
  keyCache.start()
  return {
    signer: new ExternalJwtSigner(client, keyCache),
    keyCache,
    maxTokenExpirationSeconds: metadata.maxTokenExpirationSeconds,
    close() {
      keyCache.stop()
      client.close()
    },
  }
}
