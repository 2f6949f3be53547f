/**
 * The reference's EquivalentResourceMapper for webhooks with matchPolicy Equivalent: the
 * resources kept in the same storage as the request's (every served version of a custom
 * resource; autoscaling/v1 and v2 HorizontalPodAutoscalers; core and events.k8s.io Events),
 * with the kind each is served as, and the conversion of an object between them. The
 * reference keys its registry on the storage prefix; so does this one (the stores' prefix()).
 *
 * Subresources: `scale` is autoscaling/v1 Scale in every version, `status` the resource's own
 * kind; another subresource of an equivalent resource has no known kind (the reference's
 * "unknown kind").
 */
import type { GenericStore } from '../../api/registry/generic-store.js'
import type { KubeObject } from '../../api/registry/object.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'

export interface GroupVersionResource {
  group: string
  version: string
  resource: string
}

export interface GroupVersionKind {
  group: string
  version: string
  kind: string
}

/** Where a webhook is called for a request (the reference's WebhookInvocation). */
export interface WebhookInvocation {
  resource: GroupVersionResource
  subresource: string
  kind: GroupVersionKind
}

const SCALE: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' }

const gvrKey = (r: GroupVersionResource) => `${r.group}/${r.version}/${r.resource}`

/** How long the stores' grouping is kept: the custom resources served change within a second. */
const CACHE_MS = 1000

interface Grouping {
  at: number
  /** Each served resource's equivalents (itself included, in registration order), by `group/version/resource`. */
  byResource: Map<string, GenericStore[]>
}

const groupings = new WeakMap<PluginInitialization, Grouping>()

/** The stores served now (built-in, then custom resources) grouped by their storage prefix. */
async function grouping(init: PluginInitialization): Promise<Grouping> {
  const now = Date.now()
  const cached = groupings.get(init)
  if (cached && now - cached.at < CACHE_MS) return cached
  const registry = init.stores()
  const stores = [...(registry?.all?.() ?? []), ...((await registry?.customStores?.()) ?? [])]
  const byPrefix = new Map<string, GenericStore[]>()
  for (const store of stores) {
    const prefix = store.prefix()
    const list = byPrefix.get(prefix)
    if (list) list.push(store)
    else byPrefix.set(prefix, [store])
  }
  const byResource = new Map<string, GenericStore[]>()
  for (const list of byPrefix.values()) for (const store of list) byResource.set(gvrKey(resourceOf(store)), list)
  const fresh = { at: now, byResource }
  groupings.set(init, fresh)
  return fresh
}

/** The stores sharing the storage of `resource`, itself included (empty when it is not served). */
export async function equivalentStores(init: PluginInitialization, resource: GroupVersionResource): Promise<GenericStore[]> {
  return (await grouping(init)).byResource.get(gvrKey(resource)) ?? []
}

export function resourceOf(store: GenericStore): GroupVersionResource {
  const { group, version, resource } = store.strategy
  return { group, version, resource }
}

/** The reference's KindFor(resource, subresource): undefined for a subresource it does not know. */
export function kindFor(store: GenericStore, subresource: string): GroupVersionKind | undefined {
  const { group, version, kind, subresources } = store.strategy
  if (subresource === '') return { group, version, kind }
  if (!(subresources ?? []).includes(subresource)) return undefined
  if (subresource === 'scale') return SCALE
  if (subresource === 'status') return { group, version, kind }
  return undefined
}

/**
 * `object` (as the request carries it) in the form `target` serves: through the storage form
 * (the built-in kinds kept in another version's form) or a custom resource's conversion.
 */
export async function convertObject(object: KubeObject, from: GenericStore, target: GenericStore): Promise<KubeObject> {
  const apiVersion = target.apiVersion
  if (object.apiVersion === apiVersion) return object
  const conversion = target.strategy.conversion ?? from.strategy.conversion
  if (conversion) return (await conversion.converter.convert([structuredClone(object)], apiVersion))[0]!
  if (target.strategy.customResource) return { ...structuredClone(object), apiVersion }
  const stored = from.strategy.storageVersion ? from.strategy.storageVersion.toStorage(structuredClone(object)) : structuredClone(object)
  return target.strategy.storageVersion ? target.strategy.storageVersion.fromStorage(stored) : stored
}

const sameKind = (a: GroupVersionKind, b: GroupVersionKind) => a.group === b.group && a.version === b.version && a.kind === b.kind

/**
 * The attributes as the webhook of `invocation` sees them (the reference's VersionedAttributes):
 * the request's own when the kind is the requested one, else a view whose object and old
 * object are converted to the invocation's version. The view shares the request's warnings
 * and audit annotations.
 */
export async function versionedAttributes(attributes: AdmissionAttributes, invocation: WebhookInvocation, init: PluginInitialization): Promise<AdmissionAttributes> {
  if (sameKind(invocation.kind, attributes.kind)) return attributes
  const stores = await equivalentStores(init, attributes.resource)
  const from = stores.find((s) => gvrKey(resourceOf(s)) === gvrKey(attributes.resource))
  const target = stores.find((s) => gvrKey(resourceOf(s)) === gvrKey(invocation.resource))
  if (!from || !target) throw new Error(`unable to convert to ${invocation.kind.group}/${invocation.kind.version}, Kind=${invocation.kind.kind}`)
  attributes.warnings ??= []
  attributes.annotations ??= {}
  const view: AdmissionAttributes = { ...attributes }
  const converted = {
    ...(attributes.object ? { object: await convertObject(attributes.object, from, target) } : {}),
    ...(attributes.oldObject ? { oldObject: await convertObject(attributes.oldObject, from, target) } : {}),
  }
  return Object.assign(view, converted)
}

/** The object of a view back in the request's version (after a mutating webhook patched it). */
export async function convertBack(object: KubeObject, attributes: AdmissionAttributes, invocation: WebhookInvocation, init: PluginInitialization): Promise<KubeObject> {
  const stores = await equivalentStores(init, attributes.resource)
  const from = stores.find((s) => gvrKey(resourceOf(s)) === gvrKey(invocation.resource))!
  const target = stores.find((s) => gvrKey(resourceOf(s)) === gvrKey(attributes.resource))!
  return convertObject(object, from, target)
}
