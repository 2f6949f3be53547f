/**
 * How objects are stored (`--storage-media-type`): built-in kinds as protobuf (the default),
 * JSON or YAML; custom resources always as JSON, as the reference stores unstructured objects.
 * Reading looks at the bytes, not the setting (`k8s\0` protobuf, `{` JSON, anything else
 * YAML), so a store written under another setting stays readable after a restart.
 *
 * The protobuf codec is loaded only when needed: at start for a protobuf setting, otherwise
 * the first time a stored protobuf value is read. The store handed to the generic stores is
 * wrapped so that every value it returns is decodable synchronously by the time it arrives.
 */
import { PROTOBUF_MEDIA_TYPE, type ProtobufCodec, ProtobufError, isProtobufEnvelope } from '../../../core/protobuf/index.js'
import type { STORAGE_MEDIA_TYPES } from '../../../core/options/enums.js'
import { jsYaml, loadYaml } from '../../../core/util/yaml.js'
import type { Store, Watch } from '../../store/types.js'
import { loadedProtobufCodec, protobufCodec } from '../negotiation.js'
import { errors } from '../status-errors.js'

export type StorageMediaType = (typeof STORAGE_MEDIA_TYPES)[number]

/** The spec's default (`--storage-media-type`). */
export const DEFAULT_STORAGE_MEDIA_TYPE: StorageMediaType = 'application/vnd.kubernetes.protobuf'

type Obj = Record<string, unknown>

export class StorageCodec {
  constructor(
    readonly mediaType: StorageMediaType = 'application/json',
    private readonly loadCodec: () => Promise<ProtobufCodec> = protobufCodec,
    private readonly codecNow: () => ProtobufCodec | undefined = loadedProtobufCodec,
  ) {}

  /** Whether writes can be encoded now (`ready()` would have nothing to wait for). */
  get isReady(): boolean {
    return this.mediaType !== PROTOBUF_MEDIA_TYPE || this.codecNow() !== undefined
  }

  /** Resolves once writes can be encoded (loads the protobuf codec for a protobuf setting). */
  async ready(): Promise<void> {
    if (this.mediaType === PROTOBUF_MEDIA_TYPE && !this.codecNow()) await this.loadCodec()
  }

  /** The stored bytes of an object (no resourceVersion: callers strip it). */
  encode(obj: Obj, customResource = false): Buffer {
    if (!customResource && this.mediaType === PROTOBUF_MEDIA_TYPE) {
      const codec = this.codecNow()
      if (!codec) throw new Error('the protobuf codec is not loaded: await StorageCodec.ready() before writing')
      const apiVersion = String(obj.apiVersion ?? '')
      const kind = String(obj.kind ?? '')
      if (codec.hasType(apiVersion, kind)) {
        try {
          return codec.encode(obj)
        } catch (err) {
          // A value of the wrong type, which the reference's typed decoding rejects up front.
          if (!(err instanceof ProtobufError)) throw err
          throw errors.badRequest(`${kind} in version ${JSON.stringify(apiVersion.split('/').pop())} cannot be handled as a ${kind}: ${err.message}`)
        }
      }
    }
    if (!customResource && this.mediaType === 'application/yaml') return Buffer.from(jsYaml().dump(obj, { lineWidth: -1, noRefs: true }))
    return Buffer.from(JSON.stringify(obj))
  }

  /** The object of stored bytes, whatever media type wrote them. */
  decode(value: Buffer): Obj {
    if (isProtobufEnvelope(value)) {
      const codec = this.codecNow()
      if (!codec) throw new Error('a stored value is protobuf but the protobuf codec is not loaded')
      return codec.decode(value)
    }
    if (value[0] === 0x7b) return JSON.parse(value.toString('utf8')) as Obj
    const loaded = loadYaml(value.toString('utf8'))
    return (loaded !== null && typeof loaded === 'object' ? loaded : {}) as Obj
  }

  /** Whether `value` is protobuf and the codec not loaded yet. */
  private needsCodec(value: Buffer | undefined): boolean {
    return value !== undefined && isProtobufEnvelope(value) && !this.codecNow()
  }

  /** `store` with this codec attached, and the codec loaded before protobuf values come out of it. */
  wrap(store: Store): Store {
    const load = async () => {
      await this.loadCodec()
    }
    const wrapWatch = (w: Watch): Watch => {
      const wrapped: Watch = {
        get startRevision() {
          return w.startRevision
        },
        cancel: () => w.cancel(),
        ...(w.requestProgress ? { requestProgress: () => w.requestProgress!() } : {}),
        next: async () => {
          const r = await w.next()
          if (!r.done && (this.needsCodec(r.value.value) || this.needsCodec(r.value.prevValue))) await load()
          return r
        },
        return: async (value?: unknown) => (w.return ? w.return(value) : { done: true as const, value: undefined }),
        [Symbol.asyncIterator]: () => wrapped,
      }
      return wrapped
    }
    const methods = new Map<PropertyKey, unknown>()
    const method = (target: Store, prop: PropertyKey, fn: (...a: unknown[]) => unknown): unknown => {
      switch (prop) {
        case 'get':
        case 'update':
        case 'create':
          return async (...a: unknown[]) => {
            const kv = (await fn.apply(target, a)) as { value: Buffer } | null
            if (this.needsCodec(kv?.value)) await load()
            return kv
          }
        case 'getNow':
          // At once only when nothing is to be loaded first; else undefined, and the caller uses get.
          return (...a: unknown[]) => {
            const kv = fn.apply(target, a) as { value: Buffer } | null | undefined
            return kv && this.needsCodec(kv.value) ? undefined : kv
          }
        case 'delete':
          return async (...a: unknown[]) => {
            const r = (await fn.apply(target, a)) as { prev: { value: Buffer } }
            if (this.needsCodec(r.prev.value)) await load()
            return r
          }
        case 'list':
          return async (...a: unknown[]) => {
            const r = (await fn.apply(target, a)) as { items: { value: Buffer }[] }
            if (r.items.some((kv) => this.needsCodec(kv.value))) await load()
            return r
          }
        case 'watch':
          return async (...a: unknown[]) => wrapWatch((await fn.apply(target, a)) as Watch)
        default:
          return fn.bind(target)
      }
    }
    const wrapper: Store = new Proxy(store, {
      get(target, prop) {
        // The target as receiver: stores may keep private fields behind getters.
        const v = Reflect.get(target, prop) as unknown
        if (typeof v !== 'function') return v
        if (!methods.has(prop)) methods.set(prop, method(target, prop, v as (...a: unknown[]) => unknown))
        return methods.get(prop)
      },
    })
    CODECS.set(wrapper, this)
    return wrapper
  }
}

const CODECS = new WeakMap<Store, StorageCodec>()
const JSON_CODEC = new StorageCodec('application/json')

/** `layer` (a cache or other wrapper over `store`) writes with the codec `store` was wrapped with. */
export function shareStorageCodec(store: Store, layer: Store): void {
  const codec = CODECS.get(store)
  if (codec) CODECS.set(layer, codec)
}

/** The codec a store was wrapped with; an unwrapped store writes JSON (and reads anything). */
export function storageCodecFor(store: Store): StorageCodec {
  return CODECS.get(store) ?? JSON_CODEC
}
