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

/** The store serving `gvk`, or undefined when no served resource has that kind. */
export async function mapKind(stores: AdmissionStores, gvk: GroupVersionKind): Promise<KindMapping | undefined> {
  if (kindsAware(stores)) {
    const strategy = (await stores.kinds()).find((s) => s.group === gvk.group && s.version === gvk.version && s.kind === gvk.kind)
    if (!strategy) return undefined
    const store = await stores.resolve(gvk.group, gvk.version, strategy.resource)
    return store ? { gvk, resource: strategy.resource, namespaced: strategy.namespaced, store } : undefined
  }
  for (const info of RESOURCES) {
    if (info.group !== gvk.group || info.version !== gvk.version || info.kind !== gvk.kind) continue
    const store = stores.lookup(info.group, info.version, info.resource)
    if (store) return { gvk, resource: info.resource, namespaced: store.strategy.namespaced, store }
  }
  return undefined
}
