/**
 * The objects of one resource as a controller's informer holds them (client-go's shared
 * informer and lister): listed once, then kept up to date from the registry's writes, so a
 * sync reads pods from memory instead of decoding every pod of a namespace from the store.
 * Writes seen during the first list are replayed after it; an older version never replaces a
 * newer one. The objects are the registry's own: readers must not change them.
 */
import type { GenericStore, ObjectChange } from '../../api/registry/generic-store.js'
import type { KubeObject } from '../../api/registry/object.js'

const rv = (obj: KubeObject) => Number(obj.metadata.resourceVersion ?? 0)

export class ObjectCache {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>()
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

  private put({ type, object }: ObjectChange): void {
    const namespace = object.metadata.namespace ?? ''
    const name = object.metadata.name!
    let objects = this.byNamespace.get(namespace)
    const known = objects?.get(name)
    if (known && rv(known) > rv(object)) return
    if (type === 'deleted') {
      objects?.delete(name)
      if (objects?.size === 0) this.byNamespace.delete(namespace)
      return
    }
    if (!objects) this.byNamespace.set(namespace, (objects = new Map()))
    objects.set(name, object)
  }
}
