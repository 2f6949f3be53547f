/**
 * The storage contract the API server is written against. It carries the semantics the
 * Kubernetes API server takes from etcd (k8s.io/apiserver storage/etcd3):
 *
 * - One global revision counter per store. Every successful write increments it by one and
 *   the new value is the written key's mod revision. Revisions never go backwards, also
 *   across restarts.
 * - Keys are strings relative to the configured prefix (`/pods/default/web`); a store
 *   that shares a backend with others (etcd) prepends the prefix itself. Keys compare as
 *   their UTF-8 bytes, like etcd.
 * - Values are opaque bytes. Buffers handed out (in results and watch events) may be shared
 *   between callers: treat them as read-only.
 * - A read at revision R sees exactly the writes with revision <= R. After `compact(C)`,
 *   reads at R < C and watches from R < C fail with `CompactedError`; reads at R >= C and
 *   watches from R >= C stay exact.
 * - Every failure is a `StoreError` (see errors.ts) with a `code`.
 */

/** One stored version of a key. */
export interface KeyValue {
  readonly key: string
  readonly value: Buffer
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: number
  /** Revision of the last write to the key (its resourceVersion). */
  readonly modRevision: number
}

export interface PutOptions {
  /**
   * The key is deleted this many seconds after the write (a DELETED watch event follows),
   * as etcd does with a lease. Absent or 0: the key lives until deleted. A later write
   * without a TTL makes the key permanent again.
   */
  readonly ttlSeconds?: number
}

export interface DeleteOptions {
  /** Delete only if the key's current mod revision is this one; otherwise `ConflictError`. */
  readonly expectedModRevision?: number
}

export interface DeleteResult {
  /** Revision of the deletion. */
  readonly revision: number
  /** The key as it was just before the deletion. */
  readonly prev: KeyValue
}

export interface GetOptions {
  /**
   * The reader accepts any state at or after this revision (the reference's resourceVersion=0
   * and not-older-than GETs), so a cache may answer. Stores read the current state, which
   * always qualifies.
   */
  readonly notOlderThan?: number
}

export interface ListOptions {
  /** Page size; 0 or absent: everything. */
  readonly limit?: number
  /**
   * Token from a previous page's `continue`. It fixes the revision and the start key, so
   * all pages of one list show the store at the first page's revision.
   */
  readonly continue?: string
  /** Start at this key (inclusive) instead of the prefix's first key; needs `revision` to page consistently. */
  readonly startKey?: string
  /** Read at this revision; 0 or absent: the current one. Older than the compacted revision: `CompactedError`. */
  readonly revision?: number
  /**
   * The reader accepts any state at or after this revision (the reference's
   * resourceVersion=0 and NotOlderThan lists), so a cache may answer. Stores read the
   * current state, which always qualifies.
   */
  readonly notOlderThan?: number
  /** The caller reads every page and needs no `remaining`: a store may skip counting it. */
  readonly skipRemaining?: boolean
  /**
   * The caller reads every page of this list at the current revision (the reference's
   * consistent list without a limit): a watch cache that has proved itself fresh (the
   * reference's ConsistentListFromCache) may answer all of it at once, without `continue`.
   * Stores read as without it.
   */
  readonly consistentWholeList?: boolean
}

export interface ListResult {
  readonly items: KeyValue[]
  /** The revision this page was read at (the same for every page of one list). */
  readonly revision: number
  /** Present when more keys follow; pass it as `continue` to read the next page. */
  readonly continue?: string
  /** When `continue` is present: how many keys follow this page. */
  readonly remaining?: number
}

/**
 * `progress` (no key, no value): every event of the watch up to `revision` was delivered
 * before it (etcd's progress notification). Only a watch whose consumer called
 * `requestProgress` gets them.
 */
export type WatchEventType = 'create' | 'update' | 'delete' | 'progress'

export interface WatchEvent {
  readonly type: WatchEventType
  readonly key: string
  /** Revision of the write; strictly increasing along one watch. */
  readonly revision: number
  readonly createRevision: number
  /** The new value; absent for `delete`. */
  readonly value?: Buffer
  /** The value before this write; absent for `create`. */
  readonly prevValue?: Buffer
  /** Mod revision of the previous value; absent for `create`. */
  readonly prevModRevision?: number
}

export interface WatchOptions {
  /**
   * First revision to deliver (inclusive). Absent or 0: only writes after the watch was
   * established. Older than the compacted revision: `CompactedError`.
   */
  readonly fromRevision?: number
  /** Watch exactly this key instead of every key with this prefix. */
  readonly exact?: boolean
}

/** A consumer of a watch's events as they come (see Watch.listen). */
export interface WatchListener {
  event(event: WatchEvent): void
  end(error: Error | undefined): void
}

/**
 * A running watch: an async iterator of events in revision order. Iteration ends when the
 * watch is cancelled or the store closed; it throws a `StoreError` when the watch breaks
 * (for example `CompactedError` when the store compacted past a watch that fell behind).
 */
export interface Watch extends AsyncIterableIterator<WatchEvent> {
  /** The first revision this watch can deliver. */
  readonly startRevision: number
  /** Stop the watch; pending and later `next()` calls finish with `done`. Idempotent. */
  cancel(): void
  /**
   * Events handed over as they come instead of iterated (WatchStream.listen); not every watch
   * has it. With `group`, a producer that fans changes out (the watch cache) may hand later
   * changes to the group once for all its members, `sink` being this watch's member.
   */
  listen?<M extends WatchListener>(sink: M, group?: { event(event: WatchEvent, members: readonly M[]): void }): void
  /**
   * Asks the store for a `progress` event on this watch: the store's current revision, once
   * every event of the watch up to it was delivered (etcd's progress request). From the first
   * call on, the watch may also deliver unrequested progress events. A store may not answer
   * (a watch still catching up): ask again. Absent: the store cannot tell.
   */
  requestProgress?(): void
}

/** A named probe, one per backend a store talks to. */
export interface NamedHealthCheck {
  /**
   * Liveness: `store` for the main backend, `store-override-N` for the N-th override
   * server set. Readiness: the same names with `-readiness` appended.
   */
  readonly name: string
  /** Resolves when the backend answered a real request within `timeoutMs`; rejects otherwise. */
  check(timeoutMs?: number): Promise<void>
}

export type StoreKind = 'sqlite' | 'etcd' | 'routed'

export interface Store {
  readonly kind: StoreKind
  /** Creates `key`; `AlreadyExistsError` if it exists. */
  create(key: string, value: Buffer, options?: PutOptions): Promise<KeyValue>
  /** The key's current version, or null when it does not exist. */
  get(key: string, options?: GetOptions): Promise<KeyValue | null>
  /**
   * The key's current version read at once, as get() without options would give it, by a store
   * that can answer without waiting (the embedded store); undefined when it cannot (the caller
   * uses get). Lets a GET of one object be answered within its request's own call.
   */
  getNow?(key: string): KeyValue | null | undefined
  /**
   * Compare-and-swap: writes only if the key's mod revision is `expectedModRevision`.
   * `ConflictError` (carrying the current version) when it differs; `NotFoundError` when absent.
   */
  update(key: string, value: Buffer, expectedModRevision: number, options?: PutOptions): Promise<KeyValue>
  /** `NotFoundError` when absent; `ConflictError` when `expectedModRevision` is given and differs. */
  delete(key: string, options?: DeleteOptions): Promise<DeleteResult>
  /** Keys starting with `prefix`, in key order; see ListOptions for paging. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>
  /** Number of keys starting with `prefix` at the current revision. */
  count(prefix: string): Promise<number>
  /** Resolves once the watch is established. */
  watch(keyOrPrefix: string, options?: WatchOptions): Promise<Watch>
  /**
   * Discards history older than `revision`: afterwards reads and watches need revision >= it.
   * Compacting at or below the already compacted revision does nothing.
   */
  compact(revision: number): Promise<void>
  /** The store's latest revision. */
  currentRevision(): Promise<number>
  /** Bytes the backend's database takes on disk (etcd's db size; the SQLite files). */
  dbSizeBytes(): Promise<number>
  /** A real round-trip to the backend; rejects with `UnavailableError` on failure or after `timeoutMs`. */
  healthCheck(timeoutMs?: number): Promise<void>
  /** One named liveness probe per backend (the main one first), defaulting to the health check timeout. */
  healthChecks(): NamedHealthCheck[]
  /** The same probes for readiness, defaulting to the ready check timeout. */
  readyChecks(): NamedHealthCheck[]
  /** Ends watches, stops background work and releases the backend. Idempotent. */
  close(): Promise<void>
}
