/**
 * The answers the plugin remembers (apimachinery's LRUExpireCache of 1024 entries): each kept
 * for its TTL, the least recently used dropped when the cache is full, an expired one dropped
 * when it is asked for. A TTL of 0 keeps nothing (the reference's entry expires the nanosecond
 * after it was added).
 */
export class LruExpireCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>()

  constructor(
    private readonly size: number,
    private readonly now: () => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    if (this.now() > entry.expires) return undefined
    this.entries.set(key, entry)
    return entry.value
  }

  add(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key)
    if (ttlMs <= 0) return
    this.entries.set(key, { value, expires: this.now() + ttlMs })
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!)
  }
}
