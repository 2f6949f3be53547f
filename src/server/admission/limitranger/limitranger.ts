/**
 * The LimitRanger admission plugin (the reference's plugin/pkg/admission/limitranger): the
 * LimitRanges of the namespace default the resources of a created pod's containers and hold
 * pods and claims to their min, max and limit-to-request ratio; a breach is a 403 naming the
 * object, with the reference's messages. Pods are checked on create and on a resize, claims
 * on create and update; an object being deleted passes. The LimitRanges are kept in memory;
 * a namespace with none there is listed live, and that answer kept for 30 seconds, as the
 * reference's live-lookup cache does for caches that lag.
 */
import type { GenericStore } from '../../api/registry/generic-store.js'
import { Informer } from '../../api/registry/informer.js'
import type { KubeObject } from '../../api/registry/object.js'
import { errors } from '../../api/status-errors.js'
import { type AdmissionAttributes, CREATE, UPDATE, nameForRefusal } from '../attributes.js'
import { type MutationInterface, type ValidationInterface, actsOnOnly, handlesOnly } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { persistentVolumeClaimValidateLimitFunc, podMutateLimitFunc, podValidateLimitFunc } from './limit-funcs.js'

export const LIMIT_RANGER = 'LimitRanger'

/** How long a live lookup answers for its namespace (the reference's liveTTL). */
const LIVE_TTL_MS = 30_000
/** The namespaces whose live lookups are kept (the reference's LRU size). */
const LIVE_LOOKUP_ENTRIES = 10_000

export class LimitRanger implements MutationInterface, ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)
  readonly actsOn = actsOnOnly('pods', 'persistentvolumeclaims')
  private informer: Informer | undefined
  private informerOver: GenericStore | undefined
  private readonly liveLookups = new Map<string, { expiry: number; items: KubeObject[] }>()

  constructor(
    private readonly init: PluginInitialization,
    private readonly now: () => number = Date.now,
  ) {}

  admit(a: AdmissionAttributes): Promise<void> {
    return this.runLimitFunc(a, (limitRange) => {
      if (a.resource.resource === 'pods') podMutateLimitFunc(limitRange, a.object!)
      return undefined
    })
  }

  validate(a: AdmissionAttributes): Promise<void> {
    return this.runLimitFunc(a, (limitRange) => {
      if (a.resource.resource === 'pods') return podValidateLimitFunc(limitRange, a.object!, this.podLevelResources())
      if (a.resource.resource === 'persistentvolumeclaims') return persistentVolumeClaimValidateLimitFunc(limitRange, a.object!)
      return undefined
    })
  }

  stop(): void {
    this.informer?.stop()
    this.informer = undefined
    this.informerOver = undefined
    this.liveLookups.clear()
  }

  /** PodLevelResources (beta, on by default since 1.34): pod-level resources count. */
  private podLevelResources(): boolean {
    return this.init.config.featureGates?.get('PodLevelResources') ?? true
  }

  private async runLimitFunc(a: AdmissionAttributes, limitFn: (limitRange: KubeObject) => string | undefined): Promise<void> {
    if (!supportsAttributes(a) || !a.object) return
    // An object marked for deletion is never blocked.
    if (a.oldObject?.metadata.deletionTimestamp) return
    for (const limitRange of await this.getLimitRanges(a.namespace)) {
      const why = limitFn(limitRange)
      if (why) throw errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
    }
  }

  /** The namespace's LimitRanges from memory, else from the store (kept LIVE_TTL_MS). */
  private async getLimitRanges(namespace: string): Promise<KubeObject[]> {
    const cached = [...(this.limitRangeCache()?.list() ?? [])].filter((lr) => lr.metadata.namespace === namespace)
    if (cached.length > 0) return cached
    const entry = this.liveLookups.get(namespace)
    if (entry && entry.expiry >= this.now()) return entry.items
    const store = this.init.stores()?.lookup('', 'v1', 'limitranges')
    if (!store) return []
    const { items } = await store.list({ namespace })
    if (this.liveLookups.size >= LIVE_LOOKUP_ENTRIES) this.liveLookups.delete(this.liveLookups.keys().next().value!)
    this.liveLookups.set(namespace, { expiry: this.now() + LIVE_TTL_MS, items })
    return items
  }

  /** The informer over the current registry's LimitRanges, started when first needed. */
  private limitRangeCache(): Informer | undefined {
    const limitRanges = this.init.stores()?.lookup('', 'v1', 'limitranges')
    if (!limitRanges) return undefined
    if (this.informerOver !== limitRanges) {
      this.informer?.stop()
      this.informer = new Informer(limitRanges, { upsert: () => {}, remove: () => {} }, (err) => this.init.log(3, `limit range informer: ${err.message}`))
      this.informerOver = limitRanges
      this.liveLookups.clear()
      this.informer.start()
    }
    return this.informer
  }
}

/**
 * SupportsAttributes: pods and claims without a subresource, except pod updates (containers
 * cannot change), and a pod's resize.
 */
function supportsAttributes(a: AdmissionAttributes): boolean {
  const kind = a.kind.group === '' ? a.kind.kind : ''
  if (a.subresource === 'resize' && kind === 'Pod' && a.operation === UPDATE) return true
  if (a.subresource !== '') return false
  if (kind === 'Pod' && a.operation === UPDATE) return false
  return kind === 'Pod' || kind === 'PersistentVolumeClaim'
}
