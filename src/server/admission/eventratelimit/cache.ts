/**
 * Where a limit keeps its buckets (the reference's cache.go): a Server limit has one bucket for
 * every key; the other limits one per key in a least-recently-used cache of `cacheSize`
 * entries (hashicorp/golang-lru): a key evicted starts again with a full bucket.
 */
import type { TokenBucket } from './token-bucket.js'

export interface BucketCache {
  get(key: string): TokenBucket
}

export class SingleCache implements BucketCache {
  constructor(private readonly bucket: TokenBucket) {}
  get(_key: string): TokenBucket {
    return this.bucket
  }
}

export class LruCache implements BucketCache {
  /** In use order, the least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, TokenBucket>()

  constructor(
    private readonly size: number,
    private readonly newBucket: () => TokenBucket,
  ) {}

  get(key: string): TokenBucket {
    const found = this.entries.get(key)
    if (found) {
      this.entries.delete(key)
      this.entries.set(key, found)
      return found
    }
    const bucket = this.newBucket()
    this.entries.set(key, bucket)
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!)
    return bucket
  }
}
