/**
 * One limit of the configuration at work (the reference's limitenforcer.go): the key a request
 * counts against (none for Server; the namespace; the user's name; the event's source and
 * involved object), that key's bucket, and the refusal when it is empty.
 */
import { isPlainObject } from '../../api/registry/object.js'
import type { AdmissionAttributes } from '../attributes.js'
import { type BucketCache, LruCache, SingleCache } from './cache.js'
import type { Limit } from './config.js'
import { type Clock, TokenBucket } from './token-bucket.js'

/** The cache size when the configuration gives none. */
export const DEFAULT_CACHE_SIZE = 4096

type KeyFunc = (attributes: AdmissionAttributes) => string

export class LimitEnforcer {
  private readonly cache: BucketCache
  private readonly keyOf: KeyFunc

  constructor(
    private readonly limit: Limit,
    clock: Clock,
  ) {
    const newBucket = () => new TokenBucket(limit.qps, limit.burst, clock)
    this.keyOf = KEY_FUNCS[limit.type] ?? (() => '')
    this.cache = limit.type === 'Server' ? new SingleCache(newBucket()) : new LruCache(limit.cacheSize === 0 ? DEFAULT_CACHE_SIZE : limit.cacheSize, newBucket)
  }

  /** Takes a token from the request's bucket; the reference's text when there is none. */
  accept(attributes: AdmissionAttributes): string | undefined {
    const key = this.keyOf(attributes)
    if (this.cache.get(key).tryAccept()) return undefined
    return `limit reached on type ${this.limit.type} for key ${key}`
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The event's source and involved object, run together (getSourceAndObjectKey). */
function sourceAndObjectKey(attributes: AdmissionAttributes): string {
  const event = attributes.object
  if (!event) return ''
  const source = isPlainObject(event.source) ? event.source : {}
  const involved = isPlainObject(event.involvedObject) ? event.involvedObject : {}
  return [source.component, source.host, involved.kind, involved.namespace, involved.name, involved.uid, involved.apiVersion].map(str).join('')
}

const KEY_FUNCS: Record<string, KeyFunc> = {
  Server: () => '',
  Namespace: (a) => a.namespace,
  User: (a) => a.userInfo?.name ?? '',
  SourceAndObject: sourceAndObjectKey,
}
