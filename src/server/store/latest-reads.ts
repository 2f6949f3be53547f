import type { KeyValue, WatchEvent } from './types.js'

/** How many keys are kept, and the largest value kept: a bounded memo, not a second copy of the store. */
const MAX_KEYS = 2048
const MAX_VALUE_BYTES = 16 * 1024

/**
 * The embedded store's latest durable version (or absence: null) of keys read lately. Its
 * owner drops the keys of each batch of writes before that batch becomes readable, so an entry
 * is always what a read at the store's durable revision would return. Oldest entries go first
 * once MAX_KEYS are kept. Values are shared with readers as the watch events' values already are:
 * nothing in the server writes into a stored value.
 */
export class LatestReads {
  private readonly entries = new Map<string, KeyValue | null>()

  get(key: string): KeyValue | null | undefined {
    return this.entries.get(key)
  }

  remember(key: string, kv: KeyValue | null): void {
    if (kv !== null && kv.value.length > MAX_VALUE_BYTES) return
    if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(key, kv)
  }

  /** Drops every key a batch of writes changed (before its revision is readable). */
  forget(events: readonly WatchEvent[]): void {
    if (this.entries.size === 0) return
    for (const event of events) this.entries.delete(event.key)
  }
}
