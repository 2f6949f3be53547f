/**
 * A Store that passes every call to another: the base of the layers the server puts in front of
 * its store (encryption at rest, the watch cache), which override only the calls they change.
 */
import type {
  DeleteOptions,
  DeleteResult,
  KeyValue,
  ListOptions,
  ListResult,
  NamedHealthCheck,
  PutOptions,
  Store,
  StoreKind,
  Watch,
  WatchOptions,
} from './types.js'

export class DelegatingStore implements Store {
  constructor(protected readonly inner: Store) {}

  get kind(): StoreKind {
    return this.inner.kind
  }

  create(key: string, value: Buffer, options?: PutOptions): Promise<KeyValue> {
    return this.inner.create(key, value, options)
  }

  get(key: string): Promise<KeyValue | null> {
    return this.inner.get(key)
  }

  update(key: string, value: Buffer, expectedModRevision: number, options?: PutOptions): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision, options)
  }

  delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    return this.inner.delete(key, options)
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options)
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix)
  }

  watch(keyOrPrefix: string, options?: WatchOptions): Promise<Watch> {
    return this.inner.watch(keyOrPrefix, options)
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision)
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision()
  }

  dbSizeBytes(): Promise<number> {
    return this.inner.dbSizeBytes()
  }

  healthCheck(timeoutMs?: number): Promise<void> {
    return this.inner.healthCheck(timeoutMs)
  }

  healthChecks(): NamedHealthCheck[] {
    return this.inner.healthChecks()
  }

  readyChecks(): NamedHealthCheck[] {
    return this.inner.readyChecks()
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
