/**
 * A kind's own steps around the generic store's writes: what the reference keeps in a kind's
 * REST storage beside the generic store (the Service registry's cluster IP and node port
 * allocators, the Event registry's TTL, the Namespace and CRD registries' DELETE). A kind
 * declares them with Strategy.storeHooks; the Registry builds them once per store and hands
 * them to the GenericStore with its own hooks, the same way for every kind.
 *
 * The types here name only what the hooks use, by shape, so that a Strategy can declare its
 * hooks without importing the GenericStore (which imports the Strategy): a GenericStore is a
 * KindStore, a GenericStore's DeleteOptions a KindDeleteOptions, and the Registry's spreading
 * of the hooks into GenericStoreHooks checks that they stay compatible.
 */
import type { KubeObject } from './object.js'
import type { RegistryOptions } from './options.js'

/** The calls a kind's hooks make on a store of the registry (a GenericStore has them). */
export interface KindStore {
  get(namespace: string | undefined, name: string): Promise<KubeObject>
  list(): Promise<{ items: KubeObject[] }>
  create(obj: KubeObject): Promise<KubeObject>
  delete(namespace: string | undefined, name: string): Promise<unknown>
  /** Reads, mutates and writes back one object (no validation: the server's own changes). */
  rewrite(namespace: string | undefined, name: string, mutate: (obj: KubeObject) => void, dryRun?: boolean): Promise<KubeObject>
}

/** What a DELETE asked for, as far as a kind's DELETE reads it (GenericStore's DeleteOptions). */
export interface KindDeleteOptions {
  dryRun?: boolean
  preconditions?: { uid?: string; resourceVersion?: string }
  gracePeriodSeconds?: number
  propagationPolicy?: string
  orphanDependents?: boolean
}

/** What a DELETE did (GenericStore's DeleteResult): see there. */
export interface KindDeleteResult {
  object: KubeObject
  deleted: boolean
  updated: boolean
}

/** What a kind's hooks may reach of the registry that serves it. */
export interface StoreHooksContext {
  /**
   * The store of `resource` in group/version, if served (this kind's own too). Call it when a
   * hook runs, not when the hooks are built: the registry is still adding stores then.
   */
  lookup(group: string, version: string, resource: string): KindStore | undefined
  /** The server's options (service ranges, --event-ttl, --enable-garbage-collector...). */
  options: RegistryOptions
  log: (level: number, msg: string) => void
}

/** The steps a kind adds to its store's writes (each a member of GenericStoreHooks). */
export interface KindStoreHooks {
  /** Runs after defaulting and validation, before the write (allocations that need the store). */
  beforeCreate?(obj: KubeObject): Promise<void>
  /** The same for updates (not status writes), with the stored object. */
  beforeUpdate?(obj: KubeObject, old: KubeObject): Promise<void>
  /** Runs after an object was really created (not on dry run): objects that go with it. */
  afterCreate?(obj: KubeObject): Promise<void>
  /** Runs after an object was really deleted (not on dry run). */
  afterDelete?(obj: KubeObject): Promise<void>
  /** Takes over a DELETE: `proceed` runs the generic deletion. */
  delete?(current: KubeObject, options: KindDeleteOptions, proceed: () => Promise<KindDeleteResult>): Promise<KindDeleteResult>
  /** Seconds the written object lives (the reference's TTLFunc). */
  ttlSeconds?(obj: KubeObject): number | undefined
}
