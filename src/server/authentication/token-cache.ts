/**
 * The cached token authenticator (reference: authentication/token/cache): answers of a slow
 * method (the webhook) are kept for a TTL, keyed by a hash of the token and the audiences so
 * no token is held in memory in the clear. Acceptances and plain rejections are cached;
 * errors (an outage, a webhook's `status.error`) are not, so the next request asks again.
 * Concurrent requests with the same token share one call.
 */
import { createHash } from 'node:crypto'

import type { UserInfo } from '../http/types.js'

export interface TokenAnswer {
  user: UserInfo
  audiences?: string[]
}

export type TokenMethod = (token: string, audiences: readonly string[]) => Promise<TokenAnswer | null>

/** Entries beyond this are dropped oldest first (the reference's cache holds 4096 per stripe). */
const MAX_ENTRIES = 4096

export class TokenCache {
  private readonly entries = new Map<string, { answer: TokenAnswer | null; expires: number }>()
  private readonly inFlight = new Map<string, Promise<TokenAnswer | null>>()
  hits = 0
  misses = 0

  constructor(
    private readonly method: TokenMethod,
    private readonly ttlMs: number,
  ) {}

  private key(token: string, audiences: readonly string[]): string {
    const hash = createHash('sha256')
    for (const audience of [...audiences].sort()) hash.update(`${audience.length}:${audience}`)
    hash.update('\0')
    hash.update(token)
    return hash.digest('base64')
  }

  async authenticate(token: string, audiences: readonly string[]): Promise<TokenAnswer | null> {
    if (this.ttlMs <= 0) return this.method(token, audiences)
    const key = this.key(token, audiences)
    const now = Date.now()
    const cached = this.entries.get(key)
    if (cached && cached.expires > now) {
      this.hits++
      return cached.answer
    }
    if (cached) this.entries.delete(key)
    const pending = this.inFlight.get(key)
    if (pending) return pending
    this.misses++
    const call = this.method(token, audiences)
      .then((answer) => {
        this.entries.set(key, { answer, expires: Date.now() + this.ttlMs })
        if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
        return answer
      })
      .finally(() => this.inFlight.delete(key))
    this.inFlight.set(key, call)
    return call
  }
}
