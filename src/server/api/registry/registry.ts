/**
 * The generic stores of every served kind over one Store, wired together: namespaced creates
 * need their namespace to exist, and deleting a namespace deletes the objects in it.
 */
import type { Store } from '../../store/types.js'
import { allocateClusterIP } from '../kinds/cluster-ip.js'
import { KINDS } from '../kinds/index.js'
import { errors } from '../status-errors.js'
import { GenericStore } from './generic-store.js'
import type { KubeObject } from './object.js'
import type { Strategy } from './strategy.js'

export class Registry {
  private readonly byResource = new Map<string, GenericStore>()

  constructor(
    readonly store: Store,
    kinds: readonly Strategy[] = KINDS,
    private readonly log: (level: number, msg: string) => void = () => {},
  ) {
    for (const strategy of kinds) {
      const isServices = strategy.group === '' && strategy.resource === 'services'
      const hooks = {
        ...(isServices ? { beforeCreate: (obj: KubeObject) => allocateClusterIP(store, this.byResource.get('/v1/services')!.prefix(), obj) } : {}),
        checkNamespace: async (namespace: string) => {
          if (!(await store.get(`/namespaces/${namespace}`))) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace)
        },
        afterDelete: strategy.resource === 'namespaces' && strategy.group === '' ? (obj: { metadata: { name?: string } }) => this.deleteContents(obj.metadata.name!) : undefined,
      }
      this.byResource.set(`${strategy.group}/${strategy.version}/${strategy.resource}`, new GenericStore(store, strategy, hooks))
    }
  }

  /** The store of `resource` in group/version, if served. */
  lookup(group: string, version: string, resource: string): GenericStore | undefined {
    return this.byResource.get(`${group}/${version}/${resource}`)
  }

  all(): GenericStore[] {
    return [...this.byResource.values()]
  }

  /** Deletes every namespaced object in the namespace (each with its own DELETED event). */
  private async deleteContents(namespace: string): Promise<void> {
    for (const generic of this.all()) {
      if (!generic.strategy.namespaced) continue
      const { items } = await this.store.list(generic.prefix(namespace))
      for (const kv of items) {
        try {
          await this.store.delete(kv.key)
        } catch (err) {
          this.log(2, `deleting ${kv.key} of namespace ${namespace}: ${(err as Error).message}`)
        }
      }
    }
  }
}
