/**
 * The watch cache (the reference's cacher): per built-in resource, one store watch keeps the
 * resource's current objects and a window of recent events in memory. Watches of the
 * resource are served from that window, so any number of watchers cost one store watch;
 * lists that accept an older state (resourceVersion=0, or a NotOlderThan version the cache
 * has reached) are served from memory. A consistent list without a limit (no resourceVersion)
 * is served from memory too once the cache has proved it is fresh, as the reference's
 * ConsistentListFromCache does: the store's current revision is read (a one-key list, as the
 * reference's getCurrentResourceVersionFromStorage), and the cache waits until its store watch
 * has delivered everything up to it, asking the store for progress (etcd's progress request)
 * every 100 ms since the newest write may be another resource's; after 3 s (the reference's
 * blockTimeout) the list falls back to the store. Exact-version lists, pages and continue
 * tokens go to the store, as the reference's do.
 *
 * A watch from a version older than the window fails as the reference's does:
 * `too old resource version: <requested> (<oldest deliverable - 1>)`. The window keeps at least
 * 100 events and every event younger than 75 s, up to 102400 (the reference's dynamic sizing).
 *
 * It is a Store in front of the real one, so the generic store needs no knowledge of it.
 */
import { CompactedError, StoreError, UnavailableError } from '../../store/errors.js'
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, Watch, WatchEvent, WatchOptions } from '../../store/types.js'
import { WatchStream, type WatchGroup, type WatchSink } from '../../store/watch-stream.js'
import { DelegatingStore } from '../../store/delegating-store.js'

export interface WatchCacheOptions {
  /** Events always kept (the reference's lower bound). */
  minEvents?: number
  /** Events never exceeded (the reference's upper bound). */
  maxEvents?: number
  /** Events younger than this stay even past `minEvents` (the reference's eventFreshDuration). */
  eventFreshMs?: number
  now?: () => number
  /** Consistent lists from the cache when it is fresh (the reference's ConsistentListFromCache, on by default). */
  consistentListFromCache?: boolean
  /** How long a consistent list waits for the cache (CONSISTENT_LIST_WAIT_MS). */
  consistentListWaitMs?: number
}

/** How long a consistent list waits for the cache to be fresh before it reads the store. */
export const CONSISTENT_LIST_WAIT_MS = 3_000
/** How often a waiting cache asks its store watch for progress (the reference's progressRequester). */
const PROGRESS_REQUEST_INTERVAL_MS = 100

/** A cached event: the store event and when the cache saw it. */
interface Entry {
  event: WatchEvent
  at: number
}

/**
 * Sorts like etcd: by the keys' UTF-8 bytes. ASCII keys (nearly all: names are DNS labels)
 * compare as strings, which is the same order; otherwise each key is encoded once, not once
 * per comparison.
 */
function sortByKey(items: KeyValue[]): KeyValue[] {
  // eslint-disable-next-line no-control-regex
  if (items.every((kv) => !/[^\x00-\x7f]/.test(kv.key))) return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return items
    .map((kv) => ({ kv, bytes: Buffer.from(kv.key) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map((e) => e.kv)
}

/** A watch served by a cache, which knows how far its reader got even when no event matched it. */
class CachedWatch extends WatchStream {
  constructor(
    description: string,
    private readonly from: number,
    onStop: () => void,
    private readonly cacheRevision: () => number,
    private readonly onJoin: (sink: WatchSink, group: WatchGroup) => void,
  ) {
    super(description, from, onStop)
  }

  /** Further changes go to the member through its group (the cache's dispatch). */
  protected override join<M extends WatchSink>(sink: M, group: WatchGroup<M>): void {
    this.onJoin(sink, group as unknown as WatchGroup)
  }

  /**
   * The revision up to which this watch has delivered every event it will ever deliver (the
   * reference's bookmark resourceVersion): the cache's, once the reader took all it was given.
   */
  progress(): number | undefined {
    return this.awaitingEvents ? Math.max(this.from - 1, this.cacheRevision()) : undefined
  }
}

/** A watch served by a resource's cache: its stream, and the first revision it takes. */
interface CachedWatcher {
  stream: CachedWatch
  next: number
  /** The group it takes changes through, once it joined one. */
  group?: GroupedWatchers
}

/**
 * The watchers of one prefix that take changes through one group: a change is handed to the
 * group once, with the members' sinks, instead of to each watcher's stream in turn. The arrays
 * are replaced, never changed, so a dispatch in progress keeps the members it started with.
 */
interface GroupedWatchers {
  readonly group: WatchGroup
  watchers: CachedWatcher[]
  sinks: WatchSink[]
  /** The latest first revision of a member: an older event is not for every member. */
  maxNext: number
}

/** The cache of one resource prefix (`/configmaps/`). */
class ResourceCache {
  private objects = new Map<string, KeyValue>()
  private events: Entry[] = []
  /** Whether an event was dropped from the window since the initial list. */
  private evicted = false
  private listRevision = 0
  /** Revision the cached state is at. */
  revision = 0
  /**
   * Watchers by the prefix they watch (the resource's, or one namespace's), as the reference's
   * watch cache indexes its watchers by namespace (and by nothing for all namespaces): an event
   * is matched against each prefix once, not against each watcher.
   */
  private readonly watchers = new Map<string, Set<CachedWatcher>>()
  /** Watchers that joined a group (WatchGroup), by prefix and group. */
  private readonly groups = new Map<string, Map<WatchGroup, GroupedWatchers>>()
  private ready: Promise<void> | undefined
  /**
   * Whether the cache holds the resource (its list done, its store watch open). Until then
   * reads go to the store (the reference's ResilientWatchCacheInitialization delegates them to
   * etcd), and the readiness check waits for it.
   */
  filled = false
  private upstream: Watch | undefined
  private closed = false
  /** Consistent lists waiting for the cache to reach a revision. */
  private freshWaiters: { revision: number; resolve: (fresh: boolean) => void }[] = []
  private progressTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly options: Required<Omit<WatchCacheOptions, 'consistentListFromCache' | 'consistentListWaitMs'>>,
    private readonly onStoreWatch: () => void,
  ) {}

  /** Lists the resource and starts the one store watch, once (again after the watch broke). */
  start(): Promise<void> {
    this.ready ??= (async () => {
      const items: KeyValue[] = []
      let page = await this.store.list(this.prefix)
      const revision = page.revision
      items.push(...page.items)
      while (page.continue) {
        page = await this.store.list(this.prefix, { continue: page.continue })
        items.push(...page.items)
      }
      this.onStoreWatch()
      const watch = await this.store.watch(this.prefix, { fromRevision: revision + 1 })
      this.objects = new Map(items.map((kv) => [kv.key, kv]))
      this.events = []
      this.evicted = false
      this.listRevision = revision
      this.revision = revision
      this.upstream = watch
      this.filled = true
      void this.consume(watch)
    })().catch((err: unknown) => {
      this.ready = undefined
      throw err
    })
    return this.ready
  }

  private async consume(watch: Watch): Promise<void> {
    try {
      for await (const ev of watch) this.apply(ev)
      if (!this.closed) this.breakAll(new UnavailableError(`the store watch of ${this.prefix} ended`))
    } catch (err) {
      this.breakAll(err instanceof StoreError ? err : new UnavailableError(`the store watch of ${this.prefix} failed: ${(err as Error).message}`))
    }
  }

  /** The store watch broke: watchers end with the error, the next use lists again. */
  private breakAll(err: StoreError): void {
    this.settleWaiters(false)
    for (const group of this.watchers.values()) for (const w of group) w.stream.fail(err)
    for (const byGroup of this.groups.values()) for (const g of byGroup.values()) for (const w of g.watchers) w.stream.fail(err)
    this.watchers.clear()
    this.groups.clear()
    this.ready = undefined
    this.filled = false
    this.upstream = undefined
  }

  private apply(ev: WatchEvent): void {
    if (ev.type === 'progress') {
      // Nothing of this resource changed up to ev.revision: the cache is at that revision.
      if (ev.revision > this.revision) this.revision = ev.revision
      this.wakeWaiters()
      return
    }
    if (ev.type === 'delete') this.objects.delete(ev.key)
    else this.objects.set(ev.key, { key: ev.key, value: ev.value!, createRevision: ev.createRevision, modRevision: ev.revision })
    this.revision = ev.revision
    const now = this.options.now()
    this.events.push({ event: ev, at: now })
    this.evict(now)
    for (const [prefix, group] of this.watchers) {
      if (ev.key.startsWith(prefix)) for (const w of group) if (ev.revision >= w.next) w.stream.push(ev)
    }
    for (const [prefix, byGroup] of this.groups) {
      if (ev.key.startsWith(prefix)) for (const g of byGroup.values()) this.dispatchToGroup(g, ev)
    }
    if (this.freshWaiters.length > 0) this.wakeWaiters()
  }

  /** One change to a group's members that take it (a member's first revision may be later). */
  private dispatchToGroup(g: GroupedWatchers, ev: WatchEvent): void {
    const watchers = g.watchers
    const sinks = ev.revision >= g.maxNext ? g.sinks : g.sinks.filter((_, i) => ev.revision >= watchers[i]!.next)
    if (sinks.length === 0) return
    try {
      g.group.event(ev, sinks)
    } catch (err) {
      // A group's failure ends its members' watches, never the cache's store watch.
      const failure = new UnavailableError(`watch on ${this.prefix} failed to send an event: ${(err as Error).message}`)
      for (const w of watchers) w.stream.fail(failure)
    }
  }

  /** A listening watcher moves from its prefix's watchers to a group's. */
  private joinGroup(prefix: string, watcher: CachedWatcher, sink: WatchSink, group: WatchGroup): void {
    if (watcher.group !== undefined || watcher.stream.closed) return
    const own = this.watchers.get(prefix)
    if (own?.delete(watcher) && own.size === 0) this.watchers.delete(prefix)
    let byGroup = this.groups.get(prefix)
    if (byGroup === undefined) this.groups.set(prefix, (byGroup = new Map()))
    let g = byGroup.get(group)
    if (g === undefined) byGroup.set(group, (g = { group, watchers: [], sinks: [], maxNext: 0 }))
    g.watchers = [...g.watchers, watcher]
    g.sinks = [...g.sinks, sink]
    if (watcher.next > g.maxNext) g.maxNext = watcher.next
    watcher.group = g
  }

  private leaveGroup(prefix: string, watcher: CachedWatcher): void {
    const g = watcher.group!
    const at = g.watchers.indexOf(watcher)
    if (at < 0) return
    g.watchers = g.watchers.filter((_, i) => i !== at)
    g.sinks = g.sinks.filter((_, i) => i !== at)
    const byGroup = this.groups.get(prefix)
    if (g.watchers.length === 0 && byGroup?.get(g.group) === g) {
      byGroup.delete(g.group)
      if (byGroup.size === 0) this.groups.delete(prefix)
    }
  }

  private wakeWaiters(): void {
    const waiting = this.freshWaiters
    this.freshWaiters = waiting.filter((w) => w.revision > this.revision)
    for (const w of waiting) if (w.revision <= this.revision) w.resolve(true)
    if (this.freshWaiters.length === 0) this.stopProgressRequests()
  }

  private settleWaiters(fresh: boolean): void {
    const waiting = this.freshWaiters
    this.freshWaiters = []
    this.stopProgressRequests()
    for (const w of waiting) w.resolve(fresh)
  }

  private stopProgressRequests(): void {
    if (this.progressTimer) clearInterval(this.progressTimer)
    this.progressTimer = undefined
  }

  /** Resolves true once the cache is at `revision` or later, false after `timeoutMs` or when its watch breaks. */
  private waitUntilFresh(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision) return Promise.resolve(true)
    const upstream = this.upstream
    if (!upstream?.requestProgress) return Promise.resolve(false)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.freshWaiters = this.freshWaiters.filter((w) => w !== waiter)
        if (this.freshWaiters.length === 0) this.stopProgressRequests()
        resolve(false)
      }, timeoutMs)
      timer.unref()
      const waiter = {
        revision,
        resolve: (fresh: boolean) => {
          clearTimeout(timer)
          resolve(fresh)
        },
      }
      this.freshWaiters.push(waiter)
      upstream.requestProgress!()
      if (!this.progressTimer) {
        this.progressTimer = setInterval(() => this.upstream?.requestProgress?.(), PROGRESS_REQUEST_INTERVAL_MS)
        this.progressTimer.unref()
      }
    })
  }

  private evict(now: number): void {
    const { minEvents, maxEvents, eventFreshMs } = this.options
    let drop = 0
    while (this.events.length - drop > maxEvents || (this.events.length - drop > minEvents && now - this.events[drop]!.at >= eventFreshMs)) drop++
    if (drop > 0) {
      this.events.splice(0, drop)
      this.evicted = true
    }
  }

  /** The oldest revision a watch can start from (the reference's `oldest`). */
  private oldest(): number {
    if (!this.evicted || this.events.length === 0) return this.listRevision + 1
    return this.events[0]!.event.revision
  }

  /**
   * Whether reads can come from memory: once filled. Until then the fill is under way (started
   * again here after a broken store watch) and the caller reads the store.
   */
  private serving(): boolean {
    if (!this.filled) this.start().catch(() => {})
    return this.filled
  }

  /** The key's cached version (null: absent), or undefined when the cache is not filled or older than asked. */
  async get(key: string, notOlderThan: number): Promise<KeyValue | null | undefined> {
    if (!this.serving() || this.revision < notOlderThan) return undefined
    return this.objects.get(key) ?? null
  }

  async list(prefix: string, notOlderThan: number): Promise<ListResult | undefined> {
    if (!this.serving() || this.revision < notOlderThan) return undefined
    return this.snapshot(prefix)
  }

  /**
   * The current state of `prefix`, from memory once the cache has seen the store's current
   * revision; undefined when it could not prove that in time (the caller reads the store).
   */
  async consistentList(prefix: string, timeoutMs: number): Promise<ListResult | undefined> {
    if (!this.serving() || !this.upstream?.requestProgress) return undefined
    // The store's current revision, read through the store that holds this resource.
    const { revision } = await this.store.list(this.prefix, { limit: 1, skipRemaining: true })
    if (!(await this.waitUntilFresh(revision, timeoutMs))) return undefined
    return this.snapshot(prefix)
  }

  private snapshot(prefix: string): ListResult {
    const items: KeyValue[] = []
    for (const kv of this.objects.values()) if (kv.key.startsWith(prefix)) items.push(kv)
    sortByKey(items)
    return { items, revision: this.revision }
  }

  async watch(prefix: string, fromRevision: number): Promise<Watch> {
    await this.start()
    const from = fromRevision > 0 ? fromRevision : this.revision + 1
    const oldest = this.oldest()
    if (from - 1 < oldest - 1) {
      throw new CompactedError(from, oldest - 1)
    }
    const watcher: CachedWatcher = { stream: undefined as unknown as CachedWatch, next: from }
    let group = this.watchers.get(prefix)
    if (group === undefined) this.watchers.set(prefix, (group = new Set()))
    const own = group
    watcher.stream = new CachedWatch(
      `cached prefix "${prefix}"`,
      from,
      () => {
        if (watcher.group !== undefined) return this.leaveGroup(prefix, watcher)
        own.delete(watcher)
        if (own.size === 0 && this.watchers.get(prefix) === own) this.watchers.delete(prefix)
      },
      () => this.revision,
      (sink, sharedGroup) => this.joinGroup(prefix, watcher, sink, sharedGroup),
    )
    for (const { event } of this.events) {
      if (event.revision >= from && event.key.startsWith(prefix)) watcher.stream.push(event)
    }
    group.add(watcher)
    return watcher.stream
  }

  close(): void {
    this.closed = true
    this.settleWaiters(false)
    this.upstream?.cancel()
    for (const group of this.watchers.values()) for (const w of group) w.stream.end()
    for (const byGroup of this.groups.values()) for (const g of byGroup.values()) for (const w of g.watchers) w.stream.end()
    this.watchers.clear()
    this.groups.clear()
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref())

/** A Store whose watches and older-state lists of the given resource prefixes come from caches. */
export class WatchCachedStore extends DelegatingStore {
  private readonly caches: ResourceCache[]
  /** Store watches the caches opened (for tests and metrics). */
  storeWatches = 0

  private readonly consistentListFromCache: boolean
  private readonly consistentListWaitMs: number

  constructor(inner: Store, prefixes: readonly string[], options: WatchCacheOptions = {}) {
    super(inner)
    this.consistentListFromCache = options.consistentListFromCache ?? true
    this.consistentListWaitMs = options.consistentListWaitMs ?? CONSISTENT_LIST_WAIT_MS
    const full: Required<Omit<WatchCacheOptions, 'consistentListFromCache' | 'consistentListWaitMs'>> = {
      minEvents: options.minEvents ?? 100,
      maxEvents: options.maxEvents ?? 100 * 1024,
      eventFreshMs: options.eventFreshMs ?? 75_000,
      now: options.now ?? Date.now,
    }
    this.caches = [...new Set(prefixes)].map((p) => new ResourceCache(inner, p, full, () => this.storeWatches++))
  }

  /** Fills every cache now, as the reference does at start-up; a failure is retried on first use. */
  startAll(): void {
    for (const c of this.caches) c.start().catch(() => {})
  }

  /** Whether every cache holds its resource (the reference's storage ReadinessCheck of each resource). */
  get filled(): boolean {
    return this.caches.every((c) => c.filled)
  }

  /**
   * Resolves true once every cache is filled, polling every 100 ms as the reference's
   * StorageReadinessHook does (a cache whose fill failed is started again), or false after
   * `timeoutMs` (the reference then carries on: ready with reads from storage).
   */
  async whenFilled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const waiting = this.caches.filter((c) => !c.filled)
      if (waiting.length === 0) return true
      const left = deadline - Date.now()
      if (left <= 0) return false
      await Promise.race([Promise.allSettled(waiting.map((c) => c.start())), pause(left)])
      // A fill that failed is tried again after the poll interval.
      if (!this.filled) await pause(Math.min(100, deadline - Date.now()))
    }
  }

  private cacheFor(prefix: string): ResourceCache | undefined {
    return this.caches.find((c) => prefix.startsWith(c.prefix))
  }

  /**
   * A GET of the current state (no resourceVersion) never comes from the cache: it is the inner
   * store's read, at once when that store can answer at once.
   */
  getNow(key: string): KeyValue | null | undefined {
    const inner = this.inner
    return inner.getNow ? inner.getNow(key) : undefined
  }

  /** GETs that accept an older state (resourceVersion=0, not older than N) from memory, as the reference's cacher. */
  override async get(key: string, options: GetOptions = {}): Promise<KeyValue | null> {
    const cache = options.notOlderThan !== undefined ? this.cacheFor(key) : undefined
    const cached = await cache?.get(key, options.notOlderThan!)
    return cached !== undefined ? cached : this.inner.get(key)
  }

  override async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    if (options.consistentWholeList && this.consistentListFromCache && !options.continue && !options.startKey && !options.revision && options.notOlderThan === undefined) {
      const cache = this.cacheFor(prefix)
      // A cache that cannot answer (its list or watch failed) leaves the list to the store, whose error is the one to report.
      const cached = await cache?.consistentList(prefix, this.consistentListWaitMs).catch(() => undefined)
      if (cached) return cached
    }
    const cache = options.notOlderThan !== undefined && !options.limit && !options.continue && !options.startKey && !options.revision ? this.cacheFor(prefix) : undefined
    const cached = await cache?.list(prefix, options.notOlderThan!)
    return cached ?? this.inner.list(prefix, options)
  }

  override watch(keyOrPrefix: string, options: WatchOptions = {}): Promise<Watch> {
    const cache = options.exact ? undefined : this.cacheFor(keyOrPrefix)
    return cache ? cache.watch(keyOrPrefix, options.fromRevision ?? 0) : this.inner.watch(keyOrPrefix, options)
  }

  /** Stops the caches' store watches; the inner store is its owner's to close. */
  override async close(): Promise<void> {
    for (const c of this.caches) c.close()
  }
}

/**
 * `--watch-cache-sizes` entries (`resource[.group]#size`): the resources whose size is 0,
 * as `group/resource` ids. Non-zero sizes mean nothing beyond "cached", as in the reference.
 */
export function disabledByWatchCacheSizes(entries: readonly string[]): Set<string> {
  const disabled = new Set<string>()
  for (const entry of entries.flatMap((e) => e.split(','))) {
    const [name, size] = entry.trim().split('#')
    if (!name || size === undefined || Number(size) !== 0) continue
    const dot = name.indexOf('.')
    const resource = dot < 0 ? name : name.slice(0, dot)
    const group = dot < 0 ? '' : name.slice(dot + 1)
    disabled.add(`${group}/${resource}`)
  }
  return disabled
}
