/**
 * The ResourceQuota admission plugin (the reference's
 * k8s.io/apiserver/pkg/admission/plugin/resourcequota): a create (or an update that can
 * change usage) of an object in a namespace with quotas is checked against each quota it
 * falls in (check-request.ts) and refused with a 403 naming the object; admitted, its usage
 * is added to those quotas' status.used at once, written with the quota's resourceVersion
 * as precondition and checked again on a conflict, as the reference does, so that two
 * concurrent creates cannot both take the last unit. A dry run is checked and writes nothing.
 * The quota controller (controllers/resource-quota.ts) sets status.hard and recounts used.
 */
import type { GenericStore } from '../../api/registry/generic-store.js'
import { Informer } from '../../api/registry/informer.js'
import type { KubeObject } from '../../api/registry/object.js'
import { ApiError, errors } from '../../api/status-errors.js'
import { plainError } from '../plain-error.js'
import { type AdmissionAttributes, CREATE, UPDATE, nameForRefusal } from '../attributes.js'
import { type ValidationInterface, handlesOnly } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { QuotaError, QuotaRefusal, checkRequest } from './check-request.js'
import { type LimitedResource, limitedResourcesOf } from './config.js'
import { evaluatorFor } from './evaluators.js'
import { toJson } from './resource-list.js'

export const RESOURCE_QUOTA = 'ResourceQuota'

/** Resources that are never stored or never charged (the reference's ignoredResources). */
const IGNORED = new Set([
  '/bindings',
  '/componentstatuses',
  '/events',
  'authentication.k8s.io/tokenreviews',
  'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
])

/** The quotas per namespace, as an informer sees them. */
interface QuotaCounts {
  readonly over: GenericStore
  readonly informer: Informer
  readonly perNamespace: Map<string, number>
  synced: boolean
}

/** How many times a quota write that lost to another is checked again (the reference's retries). */
const RETRIES = 3

export class ResourceQuota implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  private readonly limited: LimitedResource[]

  constructor(
    private readonly init: PluginInitialization,
    pluginConfig: unknown = undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.limited = limitedResourcesOf(pluginConfig)
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    // Subresources are not charged, nor cluster-scoped objects, nor a namespace being created.
    if (a.subresource !== '' || a.namespace === '' || !a.object) return
    if (a.operation === CREATE && a.kind.group === '' && a.kind.kind === 'Namespace') return
    const { group, resource } = a.resource
    if (IGNORED.has(`${group}/${resource}`)) return
    const evaluator = evaluatorFor(group, resource)
    if (!evaluator.handles(a.operation, a.subresource)) return
    const quotas = this.init.stores()?.lookup('', 'v1', 'resourcequotas')
    if (!quotas) return
    // Without limited resources, a namespace the informer has seen no quota in limits nothing:
    // answered without a list (which decodes), as most namespaces have no quota.
    if (this.limited.length === 0 && this.quotaCount(quotas, a.namespace) === 0) return
    for (let attempt = 0; ; attempt++) {
      // First from the watch cache, as the reference reads an informer's lister: a quota changed
      // since is a conflict on the write below, and the retry reads the store.
      const current = (await quotas.list({ namespace: a.namespace, ...(attempt === 0 ? { resourceVersion: '0' } : {}) })).items
      // Without limited resources, a namespace without quotas limits nothing.
      if (current.length === 0 && this.limited.length === 0) return
      let changes: ReturnType<typeof checkRequest>
      try {
        changes = checkRequest(current, a, evaluator, this.now(), this.limited)
      } catch (err) {
        if (err instanceof QuotaRefusal) throw errors.forbidden({ group, resource }, nameForRefusal(a), err.message)
        if (err instanceof QuotaError) throw plainError(err.message)
        throw err
      }
      if (a.dryRun || changes.size === 0) return
      const conflict = await this.writeUsage(current, changes)
      if (!conflict) return
      if (attempt >= RETRIES) throw conflict
    }
  }

  /**
   * How many quotas the informer holds in `namespace` (kept by its events, not counted per
   * request); undefined until it has delivered the initial state, and for a new registry's store
   * until its own informer has.
   */
  private quotaCount(quotas: GenericStore, namespace: string): number | undefined {
    if (this.counts?.over !== quotas) {
      this.stop()
      const perNamespace = new Map<string, number>()
      const add = (obj: KubeObject, n: number) => {
        const ns = obj.metadata.namespace ?? ''
        const count = (perNamespace.get(ns) ?? 0) + n
        if (count > 0) perNamespace.set(ns, count)
        else perNamespace.delete(ns)
      }
      const counts: QuotaCounts = {
        over: quotas,
        perNamespace,
        synced: false,
        informer: new Informer(
          quotas,
          { upsert: (obj, old) => old === undefined && add(obj, 1), remove: (obj) => add(obj, -1), synced: () => (counts.synced = true) },
          (err) => this.init.log(3, `resource quota informer: ${err.message}`),
        ),
      }
      this.counts = counts
      counts.informer.start()
    }
    return this.counts.synced ? (this.counts.perNamespace.get(namespace) ?? 0) : undefined
  }

  private counts?: QuotaCounts

  stop(): void {
    this.counts?.informer.stop()
    this.counts = undefined
  }

  /** Writes each changed quota's used; answers the last conflict, if a quota changed meanwhile. */
  private async writeUsage(quotas: readonly KubeObject[], changes: ReturnType<typeof checkRequest>): Promise<ApiError | undefined> {
    const store = this.init.stores()!.lookup('', 'v1', 'resourcequotas')!
    let conflict: ApiError | undefined
    for (const [i, used] of changes) {
      const quota = quotas[i]!
      try {
        await store.update(
          quota.metadata.namespace,
          quota.metadata.name!,
          (stored) => ({ ...stored, metadata: { ...stored.metadata, resourceVersion: quota.metadata.resourceVersion }, status: { ...(stored.status as object), used: toJson(used) } }),
          { subresource: 'status', admission: false },
        )
      } catch (err) {
        if (err instanceof ApiError && err.status.code === 409) conflict = err
        else if (!(err instanceof ApiError && err.status.code === 404)) throw err
      }
    }
    return conflict
  }
}
