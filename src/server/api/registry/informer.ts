/**
 * A kind's objects kept in memory and current (the reference's shared informer, reduced to
 * what in-process readers need): one watch that starts with the current state, then applies
 * every change. When the watch ends (compaction, a store error) it starts again and the
 * objects that disappeared meanwhile are dropped. Readers never touch the store per request.
 */
import type { GenericStore } from './generic-store.js'
import { INITIAL_EVENTS_END_ANNOTATION } from './generic-store.js'
import type { KubeObject } from './object.js'

export interface InformerHandlers {
  /** An object was added or changed (`old` is the previous version, when known). */
  upsert(obj: KubeObject, old: KubeObject | undefined): void
  remove(obj: KubeObject): void
  /** The initial state has been delivered (after every start or restart). */
  synced?(): void
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`

/**
 * What an informer keeps of each object: the whole object (for readers of `list` and `get`),
 * or its identity alone (for handlers that keep what they need themselves, such as the node
 * authorizer's graph: a pod's whole object per pod would be a second decoded copy of every pod
 * beside the controllers' shared one).
 */
export type InformerRetention = 'objects' | 'identity'

/** The object reduced to what identifies it (the `old` of an upsert, the object of a resync's remove). */
function identityOf(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion } = obj.metadata
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, namespace, uid, resourceVersion } }
}

export class Informer {
  private readonly objects = new Map<string, KubeObject>()
  private stopped = false
  private cancel: (() => void) | undefined
  private resolveSynced!: () => void
  /** Resolves when the first initial state has been delivered. */
  readonly synced = new Promise<void>((resolve) => (this.resolveSynced = resolve))

  constructor(
    private readonly store: GenericStore,
    private readonly handlers: InformerHandlers,
    private readonly onError: (err: Error) => void = () => {},
    private readonly retryMs = 1000,
    private readonly retention: InformerRetention = 'objects',
  ) {}

  start(): void {
    void this.run()
  }

  stop(): void {
    this.stopped = true
    this.cancel?.()
  }

  /** The objects as kept (with retention 'identity', their identity alone). */
  list(): IterableIterator<KubeObject> {
    return this.objects.values()
  }

  /** One object as last seen (`namespace` '' for cluster-scoped kinds). */
  get(name: string, namespace = ''): KubeObject | undefined {
    return this.objects.get(`${namespace}/${name}`)
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.watchOnce()
      } catch (err) {
        this.onError(err as Error)
      }
      if (this.stopped) return
      await new Promise((resolve) => setTimeout(resolve, this.retryMs).unref())
    }
  }

  private async watchOnce(): Promise<void> {
    const watch = await this.store.watch({ sendInitialEvents: true, allowWatchBookmarks: true, resourceVersion: '' })
    this.cancel = () => watch.cancel()
    if (this.stopped) return watch.cancel()
    let seen: Set<string> | undefined = new Set()
    for await (const ev of watch) {
      if (ev.type === 'ERROR') throw new Error(String((ev.object as { message?: unknown }).message ?? 'watch error'))
      if (ev.type === 'BOOKMARK') {
        const annotations = (ev.object as KubeObject).metadata?.annotations ?? {}
        if (seen && annotations[INITIAL_EVENTS_END_ANNOTATION] === 'true') {
          // Objects deleted while no watch was open are gone from the initial state.
          for (const [key, obj] of this.objects) {
            if (!seen.has(key)) {
              this.objects.delete(key)
              this.handlers.remove(obj)
            }
          }
          seen = undefined
          this.handlers.synced?.()
          this.resolveSynced()
        }
        continue
      }
      const obj = ev.object as KubeObject
      const key = keyOf(obj)
      if (ev.type === 'DELETED') {
        this.objects.delete(key)
        this.handlers.remove(obj)
        continue
      }
      seen?.add(key)
      const old = this.objects.get(key)
      this.objects.set(key, this.retention === 'identity' ? identityOf(obj) : obj)
      this.handlers.upsert(obj, old)
    }
  }
}
