/**
 * The namespaces in memory for the plugins that read a request's namespace per request (the
 * reference's shared namespace informer and lister): the webhooks' and policy bindings'
 * namespace selectors and the policies' `namespaceObject`. One informer per server (per
 * PluginInitialization), over the current registry's namespaces store, started when first
 * asked; a namespace it has not seen yet is for the caller to read live, as the reference
 * falls back to a live GET. An object it hands out is the same one until the namespace
 * changes, so that what a caller derives from it can be kept per object (WeakMap).
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import { Informer } from '../api/registry/informer.js'
import type { KubeObject } from '../api/registry/object.js'
import type { AdmissionStores, PluginInitialization } from './plugins.js'

interface Cache {
  /** The registry it was made for, and its namespaces store. */
  readonly stores: AdmissionStores
  readonly over: GenericStore
  readonly informer: Informer
  /** The namespaces by name (the informer's own keys are `/<name>`, made per lookup). */
  readonly byName: Map<string, KubeObject>
}

const caches = new WeakMap<PluginInitialization, Cache>()

/** The namespace as last seen by the informer, or undefined (not seen yet, no registry). */
export function cachedNamespace(init: PluginInitialization, name: string): KubeObject | undefined {
  const stores = init.stores()
  if (!stores) return undefined
  let cache = caches.get(init)
  if (cache?.stores !== stores) {
    const namespaces = stores.lookup('', 'v1', 'namespaces')
    if (!namespaces) return undefined
    if (cache?.over !== namespaces) cache = start(init, stores, namespaces)
    else caches.set(init, (cache = { ...cache, stores }))
  }
  return cache.byName.get(name)
}

function start(init: PluginInitialization, stores: AdmissionStores, namespaces: GenericStore): Cache {
  caches.get(init)?.informer.stop()
  const byName = new Map<string, KubeObject>()
  const informer = new Informer(
    namespaces,
    { upsert: (obj) => void byName.set(obj.metadata.name ?? '', obj), remove: (obj) => void byName.delete(obj.metadata.name ?? '') },
    (err) => init.log(3, `admission namespace informer: ${err.message}`),
  )
  const cache = { stores, over: namespaces, informer, byName }
  caches.set(init, cache)
  informer.start()
  return cache
}

/** Stops the informer (the server's shutdown; any plugin that reads it may call this). */
export function stopNamespaceCache(init: PluginInitialization): void {
  caches.get(init)?.informer.stop()
  caches.delete(init)
}
