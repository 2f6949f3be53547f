/** How many keys are kept: the keys written lately, not a second copy of the store. */
const MAX_KEYS = 8192

/**
 * The value each key was last written with, for the keys the embedded store wrote lately. A
 * write's event carries the value before it (prevValue); read back from the table, that value
 * is a new Buffer, a second copy of the bytes the previous write's event already holds. The event
 * windows (the store's event log, the watch caches' windows) keep both events, so while a
 * cluster's pods start (a create, a binding and a few status writes each, within seconds) they
 * held each value twice. With this, prevValue is the previous write's own Buffer whenever that
 * write is still known here at the revision the table has for the key.
 *
 * An entry is the value written at a revision, which never changes afterwards: a stale entry
 * (its key rewritten by a batch that was rolled back) never matches the revision the table
 * holds, and nothing in the server writes into a stored value.
 */
export class WrittenValues {
  private readonly entries = new Map<string, { readonly revision: number; readonly value: Buffer }>()

  /** The value `key` was written with at `revision`, when still known. */
  get(key: string, revision: number): Buffer | undefined {
    const entry = this.entries.get(key)
    return entry !== undefined && entry.revision === revision ? entry.value : undefined
  }

  remember(key: string, revision: number, value: Buffer): void {
    // Re-inserted: the oldest write goes first, not the oldest key.
    this.entries.delete(key)
    if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(key, { revision, value })
  }

  forget(key: string): void {
    this.entries.delete(key)
  }
}
