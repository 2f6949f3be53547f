/**
 * The reference's RESTMapper as the policies use it: a paramKind (apiVersion and kind) to the
 * store that serves it and whether it is namespaced; built-in kinds and the custom resources of
 * established CRDs.
 */
import type { GenericStore } from '../../api/registry/generic-store.js'
import type { Strategy } from '../../api/registry/strategy.js'
import { RESOURCES } from '../../api/generated/resources.js'
import type { AdmissionStores } from '../plugins.js'

export interface GroupVersionKind {
  readonly group: string
  readonly version: string
  readonly kind: string
}

/** What a kind maps to: its store and scope. */
export interface KindMapping {
  readonly gvk: GroupVersionKind
  readonly resource: string
  readonly namespaced: boolean
  readonly store: GenericStore
}

/** The reference's ParseGroupVersion: `v1` is the core group, `g/v` a group; anything else is an error. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' }
  const parts = apiVersion.split('/')
  if (parts.length === 1) return { group: '', version: apiVersion }
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! }
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`)
}

/** schema.GroupVersionKind's String(): `example.com/v1, Kind=Foo`, `/v1, Kind=ConfigMap`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`
}

/** The registry's kinds when it has them (the server's Registry does; a test's may not). */
interface KindsAware {
  kinds(): Promise<Strategy[]>
  resolve(group: string, version: string, resource: string): Promise<GenericStore | undefined>
}

const kindsAware = (stores: AdmissionStores): stores is AdmissionStores & KindsAware =>
  typeof (stores as Partial<KindsAware>).kinds === 'function' && typeof (stores as Partial<KindsAware>).resolve === 'function'

/** A kind the server serves now, as the RESTMapper knows it. */
export interface ServedKind {
  readonly group: string
  readonly version: string
  readonly kind: string
  readonly resource: string
  readonly namespaced: boolean
  /** A custom resource's schema. */
  readonly openAPIV3Schema?: Record<string, unknown>
}

/** The kinds served now: the built-in ones and the established CRDs' (the registry's), else the built-in table's. */
export async function servedKinds(stores: AdmissionStores | undefined): Promise<readonly ServedKind[]> {
  if (!stores) return RESOURCES
  if (kindsAware(stores)) return stores.kinds()
  return RESOURCES.filter((r) => stores.lookup(r.group, r.version, r.resource) !== undefined)
}

/** The store serving `gvk`, or undefined when no served resource has that kind. */
export async function mapKind(stores: AdmissionStores, gvk: GroupVersionKind): Promise<KindMapping | undefined> {
  const served = (await servedKinds(stores)).find((s) => s.group === gvk.group && s.version === gvk.version && s.kind === gvk.kind)
  if (!served) return undefined
  const store = kindsAware(stores) ? await stores.resolve(gvk.group, gvk.version, served.resource) : stores.lookup(gvk.group, gvk.version, served.resource)
  return store ? { gvk, resource: served.resource, namespaced: served.namespaced, store } : undefined
}
