import type { WatchCacheOptions } from './watch-cache.js'

/** Server options the resource API takes from the command line. */
export interface RegistryOptions {
  /** `--event-ttl` in seconds: events are deleted this long after their last write; 0 keeps them. */
  eventTtlSeconds?: number
  /** `--min-request-timeout`: a watch without timeoutSeconds ends after a random time in [min, 2*min]; 0: never. */
  minRequestTimeoutSeconds?: number
  /** `--watch-cache`: serve watches (and older-state lists) of built-in resources from memory. */
  watchCache?: boolean
  /** `--watch-cache-sizes` entries; size 0 turns the cache off for that resource. */
  watchCacheSizes?: readonly string[]
  /** Window sizing of the caches (tests). */
  watchCacheWindow?: WatchCacheOptions
}
