import type { UserInfo } from '../../http/types.js'
import type { AdmissionHook } from './admission-hook.js'
import type { KubeObject } from './object.js'
import type { PortRange } from '../kinds/node-ports.js'
import type { WatchCacheOptions } from './watch-cache.js'

/** What a create that a PUT or an apply would make is authorized as (the URL's resource, verb `create`). */
export interface CreateRequest {
  user: UserInfo | undefined
  group: string
  version: string
  resource: string
  subresource: string
  namespace: string
  name: string
  path: string
}

/** The authorizers' answer to a CreateRequest (the authorization room's Decision). */
export interface CreateDecision {
  decision: 'allow' | 'deny' | 'noOpinion'
  reason?: string
  error?: string
}

export type CreateAuthorizer = (request: CreateRequest) => CreateDecision | Promise<CreateDecision>

export interface WriteCheck {
  beforeCreate?(obj: KubeObject): Promise<void>
  beforeUpdate?(obj: KubeObject, old: KubeObject): Promise<void>
}

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
  /** --service-cluster-ip-range (its first IPv4 range). */
  serviceClusterIPRange?: string
  /** --service-node-port-range. */
  serviceNodePortRange?: PortRange
  /** `--delete-collection-workers`: how many objects a deletecollection deletes at once (default 1). */
  deleteCollectionWorkers?: number
  /**
   * `--enable-garbage-collector` (off unless set): deletions add the propagation policy's
   * finalizers, which the garbage collector (src/server/controllers) then acts on.
   */
  garbageCollector?: boolean
  /**
   * Checks a kind's writes get before they are stored (RBAC's escalation prevention): throw
   * an ApiError to refuse. Keyed by `<group>/<resource>`.
   */
  writeChecks?: Readonly<Record<string, WriteCheck>>
  /**
   * The admission chain every store's creates go through (the server builds it from the
   * enabled plugins, src/server/admission/); absent: nothing is admitted beyond validation.
   */
  admission?: AdmissionHook
  /**
   * Whether the requester may create what a PUT (of a kind that allows create on update) or an
   * apply is about to create: the reference's withAuthorization around createValidation
   * (endpoints/handlers/rest.go). Absent: not asked (tests without authorization).
   */
  authorizeCreate?: CreateAuthorizer
  /**
   * false: creates, updates and patches record no managedFields entry for their manager (the
   * fieldManager is still checked), and their objects keep the managedFields they were sent
   * with. Only for a server whose written objects nobody reads again (the offline validation
   * of `client validate` without admission policies, which could read them); default true.
   */
  managedFields?: boolean
  /** Window sizing of the caches (tests). */
  watchCacheWindow?: WatchCacheOptions
}
