/**
 * The objects of one resource as a controller's informer holds them (client-go's shared
 * informer and lister): listed once, then kept up to date from the registry's writes, so a
 * sync reads pods from memory instead of decoding every pod of a namespace from the store.
 * Writes seen during the first list are replayed after it; an older version never replaces a
 * newer one. The objects are the registry's own: readers must not change them.
 */
import type { GenericStore, ObjectChange } from '../../api/registry/generic-store.js'
import type { KubeObject } from '../../api/registry/object.js'
import { controllerOf } from './controller-ref.js'

const rv = (obj: KubeObject) => Number(obj.metadata.resourceVersion ?? 0)
/** The index key of an object's controller: its uid, or the namespace for an orphan. */
const ownerKey = (obj: KubeObject) => controllerOf(obj)?.uid ?? `orphan:${obj.metadata.namespace ?? ''}`

export class ObjectCache {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>()
  /** The same objects by controller (the indexer a controller's sync reads its pods from). */
  private readonly byOwner = new Map<string, Map<string, KubeObject>>()
  private pending: ObjectChange[] | undefined = []

  /** Called with every write of the resource, from before the first list. */
  apply(change: ObjectChange): void {
    if (this.pending) {
      this.pending.push(change)
      return
    }
    this.put(change)
  }

  /** The first list; writes seen meanwhile are applied after it. */
  async fill(store: GenericStore): Promise<void> {
    const { items } = await store.list()
    for (const obj of items) this.put({ type: 'created', object: obj } as ObjectChange)
    const pending = this.pending ?? []
    this.pending = undefined
    for (const change of pending) this.put(change)
  }

  list(namespace: string): KubeObject[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])]
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.byNamespace.get(namespace)?.get(name)
  }

  /** The objects whose controller has `uid`. */
  owned(uid: string): KubeObject[] {
    return [...(this.byOwner.get(uid)?.values() ?? [])]
  }

  /** The objects of `namespace` without a controller. */
  orphans(namespace: string): KubeObject[] {
    return this.owned(`orphan:${namespace}`)
  }

  private index(obj: KubeObject, add: boolean): void {
    const key = ownerKey(obj)
    const id = `${obj.metadata.namespace ?? ''}/${obj.metadata.name}`
    let bucket = this.byOwner.get(key)
    if (add) {
      if (!bucket) this.byOwner.set(key, (bucket = new Map()))
      bucket.set(id, obj)
    } else if (bucket) {
      bucket.delete(id)
      if (bucket.size === 0) this.byOwner.delete(key)
    }
  }

  private put({ type, object }: ObjectChange): void {
    const namespace = object.metadata.namespace ?? ''
    const name = object.metadata.name!
    let objects = this.byNamespace.get(namespace)
    const known = objects?.get(name)
    if (known && rv(known) > rv(object)) return
    if (known) this.index(known, false)
    if (type === 'deleted') {
      objects?.delete(name)
      if (objects?.size === 0) this.byNamespace.delete(namespace)
      return
    }
    if (!objects) this.byNamespace.set(namespace, (objects = new Map()))
    objects.set(name, object)
    this.index(object, true)
  }
}
