/**
 * The external signer's public keys, as the reference's keyCache: filled once before the
 * server starts (an error stops it), then fetched again when the signer's refresh hint has
 * passed (10 s after a failed fetch, keeping the stale keys), and at once when a token names a
 * key id the cache does not have. Keys marked `exclude_from_oidc_discovery` verify tokens but
 * are not published in the issuer's JWKS.
 */
import { type KeyObject, createPublicKey } from 'node:crypto'
import type { ExternalSignerClient } from './client.js'
import { goGrpcError } from './grpc-error.js'

const FALLBACK_REFRESH_MS = 10_000

export interface CachedKey {
  kid: string
  key: KeyObject
  excludeFromOidcDiscovery: boolean
}

interface CachedKeys {
  keys: CachedKey[]
  dataTimestampMs?: number
  nextRefreshAt: number
}

export class ExternalKeyCache {
  private current: CachedKeys = { keys: [], nextRefreshAt: 0 }
  private syncing: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private readonly listeners: Array<() => void> = []

  constructor(
    private readonly client: ExternalSignerClient,
    private readonly syncTimeoutMs: number,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  async initialFill(): Promise<void> {
    try {
      await this.sync()
    } catch (err) {
      throw new Error(`while initially filling key cache: while performing initial cache fill: ${(err as Error).message}`)
    }
  }

  /** Fetches again when the refresh hint has passed, until stop(). */
  start(): void {
    this.schedule(this.current.nextRefreshAt - Date.now())
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Called (not awaited) whenever the set of keys changes. */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** Every key now cached. */
  keys(): readonly CachedKey[] {
    return this.current.keys
  }

  /** The keys of `kid` (all of them for no kid), fetching once more when it is unknown. */
  async keysFor(kid: string | undefined): Promise<readonly CachedKey[]> {
    const found = this.find(kid)
    if (found) return found
    try {
      await this.sync()
    } catch (err) {
      this.onError(`Error while syncing keys: ${(err as Error).message}`)
      return []
    }
    const after = this.find(kid)
    if (!after) this.onError(`Key id ${JSON.stringify(kid ?? '')} not found after refresh`)
    return after ?? []
  }

  /** Seconds until the next refresh: the JWKS document's cache lifetime. */
  maxAgeSeconds(): number {
    return Math.max(0, Math.floor((this.current.nextRefreshAt - Date.now()) / 1000))
  }

  private find(kid: string | undefined): CachedKey[] | undefined {
    if (this.current.keys.length === 0) return undefined
    if (!kid) return this.current.keys
    const keys = this.current.keys.filter((k) => k.kid === kid)
    return keys.length > 0 ? keys : undefined
  }

  private schedule(ms: number): void {
    this.stop()
    this.timer = setTimeout(() => {
      this.sync().then(
        () => this.schedule(this.current.nextRefreshAt - Date.now()),
        (err: Error) => {
          this.onError(`when syncing supported public keys(Stale set of keys will be supported): ${err.message}`)
          this.schedule(FALLBACK_REFRESH_MS)
        },
      )
    }, Math.max(0, ms)).unref()
  }

  /** One fetch at a time, shared by its callers (the reference's singleflight). */
  private sync(): Promise<void> {
    this.syncing ??= this.fetch().finally(() => {
      this.syncing = undefined
    })
    return this.syncing
  }

  private async fetch(): Promise<void> {
    const before = this.current
    const next = await this.verificationKeys()
    this.current = next
    if (changed(before, next)) for (const listener of this.listeners) setImmediate(listener)
  }

  private async verificationKeys(): Promise<CachedKeys> {
    let response
    try {
      response = await this.client.fetchKeys(this.syncTimeoutMs)
    } catch (err) {
      throw new Error(`while fetching token verification keys: while getting externally supported jwt signing keys: ${goGrpcError(err)}`)
    }
    const fail = (message: string) => new Error(`while fetching token verification keys: ${message}`)
    if (response.refreshHintSeconds <= 0) throw fail(`found invalid refresh hint (${response.refreshHintSeconds}s)`)
    if (response.keys.length === 0) throw fail('found no keys')
    if (response.dataTimestampMs === undefined) throw fail('invalid data timestamp: invalid nil Timestamp')
    const keys: CachedKey[] = []
    for (const k of response.keys) {
      if (k.keyId.length === 0 || k.keyId.length > 1024) throw fail(`found invalid public key id ${JSON.stringify(k.keyId)}`)
      if (k.key.length === 0) throw fail('found empty public key')
      let key: KeyObject
      try {
        key = createPublicKey({ key: k.key, format: 'der', type: 'spki' })
      } catch (err) {
        throw fail(`while parsing external public keys: ${(err as Error).message}`)
      }
      keys.push({ kid: k.keyId, key, excludeFromOidcDiscovery: k.excludeFromOidcDiscovery })
    }
    return { keys, dataTimestampMs: response.dataTimestampMs, nextRefreshAt: Date.now() + response.refreshHintSeconds * 1000 }
  }
}

/** The reference's keysChanged: the timestamp, the number, order, ids or exclusion of the keys. */
function changed(a: CachedKeys, b: CachedKeys): boolean {
  if (a.dataTimestampMs !== b.dataTimestampMs) return true
  if (a.keys.length !== b.keys.length) return true
  return a.keys.some((k, i) => k.kid !== b.keys[i]!.kid || k.excludeFromOidcDiscovery !== b.keys[i]!.excludeFromOidcDiscovery)
}
