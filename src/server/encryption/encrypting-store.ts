/**
 * A Store that encrypts values on their way in and decrypts them on their way out, per
 * resource, as the reference's storage transformer does between the codec and etcd. It sits
 * in front of the real store, so every writer (the API, the bootstrap objects) agrees on the
 * stored format. The configuration is read on every call, so a reload takes effect at once.
 */
import type { DeleteOptions, DeleteResult, KeyValue, ListOptions, ListResult, PutOptions, Store, Watch, WatchEvent, WatchOptions } from '../store/types.js'
import { DelegatingStore } from '../store/delegating-store.js'
import { type EncryptionConfig, transformerFor } from './config.js'
import type { Transformer } from './transformers.js'

/** The storage group of a built-in resource (`/secrets/…` → ''), or undefined when unknown. */
export type StorageGroupOf = (resource: string) => string | undefined

interface EncryptingStoreOptions {
  /** The store prefix (`/registry`): the full key is the aesgcm additional data, as in the reference. */
  prefix: string
  config: () => EncryptionConfig
  storageGroupOf: StorageGroupOf
}

export class EncryptingStore extends DelegatingStore {
  private readonly prefix: string

  constructor(
    inner: Store,
    private readonly options: EncryptingStoreOptions,
  ) {
    super(inner)
    this.prefix = options.prefix.replace(/\/+$/, '')
  }

  /** `/secrets/ns/name` → secrets in ''; `/example.com/widgets/…` → widgets in example.com. */
  private transformer(key: string): Transformer | undefined {
    const parts = key.split('/')
    const first = parts[1] ?? ''
    if (first === '') return undefined
    if (first.includes('.') && parts.length > 3) return transformerFor(this.options.config(), first, parts[2] ?? '')
    const group = this.options.storageGroupOf(first)
    return transformerFor(this.options.config(), group ?? '', first)
  }

  private full(key: string): string {
    return this.prefix + key
  }

  private write(key: string, value: Buffer): Buffer {
    const t = this.transformer(key)
    return t ? t.toStorage(value, this.full(key)) : value
  }

  private read(key: string, value: Buffer): Buffer {
    const t = this.transformer(key)
    return t ? t.fromStorage(value, this.full(key)) : value
  }

  private readKv(kv: KeyValue): KeyValue {
    return { ...kv, value: this.read(kv.key, kv.value) }
  }

  override async create(key: string, value: Buffer, options?: PutOptions): Promise<KeyValue> {
    const kv = await this.inner.create(key, this.write(key, value), options)
    return { ...kv, value }
  }

  override async get(key: string): Promise<KeyValue | null> {
    const kv = await this.inner.get(key)
    return kv ? this.readKv(kv) : null
  }

  override async update(key: string, value: Buffer, expectedModRevision: number, options?: PutOptions): Promise<KeyValue> {
    const kv = await this.inner.update(key, this.write(key, value), expectedModRevision, options)
    return { ...kv, value }
  }

  override async delete(key: string, options?: DeleteOptions): Promise<DeleteResult> {
    const res = await this.inner.delete(key, options)
    let prev = res.prev
    try {
      prev = this.readKv(res.prev)
    } catch {
      // The key is gone already; its unreadable last value is all there is to return.
    }
    return { ...res, prev }
  }

  override async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const page = await this.inner.list(prefix, options)
    return {
      ...page,
      items: page.items.map((kv) => {
        try {
          return this.readKv(kv)
        } catch (err) {
          throw new Error(`unable to transform key "${this.full(kv.key)}": ${(err as Error).message}`)
        }
      }),
    }
  }

  override count(prefix: string): Promise<number> {
    return this.inner.count(prefix)
  }

  override async watch(keyOrPrefix: string, options?: WatchOptions): Promise<Watch> {
    const watch = await this.inner.watch(keyOrPrefix, options)
    const decrypt = (ev: WatchEvent): WatchEvent => ({
      ...ev,
      ...(ev.value ? { value: this.read(ev.key, ev.value) } : {}),
      ...(ev.prevValue ? { prevValue: this.read(ev.key, ev.prevValue) } : {}),
    })
    const decrypting: Watch = {
      startRevision: watch.startRevision,
      cancel: () => watch.cancel(),
      ...(watch.requestProgress ? { requestProgress: () => watch.requestProgress!() } : {}),
      next: async () => {
        const r = await watch.next()
        return r.done ? r : { done: false, value: decrypt(r.value) }
      },
      return: async () => {
        watch.cancel()
        return { done: true, value: undefined }
      },
      [Symbol.asyncIterator]: () => decrypting,
    }
    return decrypting
  }
}
