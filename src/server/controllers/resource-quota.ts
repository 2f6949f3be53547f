/**
 * The resource quota controller (the reference's pkg/controller/resourcequota): each quota's
 * status.hard follows its spec.hard and status.used is counted from the namespace's objects
 * (calculateUsage), so that `kubectl describe quota` is right and the ResourceQuota admission
 * plugin, which adds each admitted object's usage itself, has a base to add to. A quota is
 * synced when it is created or its spec changes, its namespace again after an object there is
 * deleted or a pod, service or claim changes (usage goes down only here), and every quota at
 * start and each resync period (the reference's --resource-quota-sync-period, 5m).
 */
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { toApiError } from '../api/status-errors.js'
import { type ResourceList, equals, resourceList, toJson } from '../admission/resourcequota/resource-list.js'
import { calculateUsage } from '../admission/resourcequota/usage.js'
import type { Controller, ControllerContext } from './controller.js'
import { RetryTimer } from './retry-timer.js'

const RESYNC_MS = 5 * 60_000
/** The kinds whose updates can lower usage (a pod ending, a service changing type, a claim resized). */
const USAGE_ON_UPDATE = new Set(['/pods', '/services', '/persistentvolumeclaims'])

type Obj = Record<string, unknown>
const objOf = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

export class ResourceQuotaController implements Controller {
  readonly name = 'resourcequota-controller'
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined
  /** The namespaces to sync; `undefined` in the set means all of them. */
  private readonly dirty = new Set<string | undefined>()
  private resync: NodeJS.Timeout | undefined
  private readonly timer = new RetryTimer(
    () => this.sync(),
    (err) => this.log(2, `resource quota controller: ${(err as Error).message}`),
  )

  constructor(private readonly now: () => number = Date.now) {}

  start(ctx: ControllerContext): void {
    if (!ctx.registry.lookup('', 'v1', 'resourcequotas')) return
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      const namespace = object.metadata.namespace
      if (!namespace) return
      const kind = `${strategy.group}/${strategy.resource}`
      if (kind === '/resourcequotas') {
        if (type !== 'deleted' && needsSync(object)) this.mark(namespace)
      } else if (type === 'deleted' || (type === 'updated' && USAGE_ON_UPDATE.has(kind))) this.mark(namespace)
    })
    this.mark(undefined)
    this.resync = setInterval(() => this.mark(undefined), RESYNC_MS)
    this.resync.unref()
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.resync) clearInterval(this.resync)
    this.timer.stop()
  }

  private mark(namespace: string | undefined): void {
    this.dirty.add(namespace)
    this.timer.schedule(0)
  }

  private async sync(): Promise<void> {
    const namespaces = [...this.dirty]
    this.dirty.clear()
    const store = this.registry!.lookup('', 'v1', 'resourcequotas')!
    const all = namespaces.includes(undefined)
    const quotas = all ? (await store.list()).items : (await Promise.all(namespaces.map(async (ns) => (await store.list({ namespace: ns })).items))).flat()
    for (const quota of quotas) {
      try {
        await this.syncQuota(quota)
      } catch (err) {
        const code = toApiError(err).status.code
        // Gone, or changed meanwhile: the change brings it back here.
        if (code === 404) continue
        if (code === 409) {
          this.mark(quota.metadata.namespace)
          continue
        }
        throw err
      }
    }
  }

  /** syncResourceQuota: status.hard from spec.hard, used recounted, written when either changed. */
  private async syncQuota(quota: KubeObject): Promise<void> {
    const hard = resourceList(objOf(quota.spec).hard)
    const status = objOf(quota.status)
    const counted = await calculateUsage(quota, (group, resource, namespace) => this.list(group, resource, namespace), this.now())
    const used: ResourceList = new Map([...resourceList(status.used)].filter(([name]) => hard.has(name)))
    for (const [name, q] of counted) used.set(name, q)
    if (status.hard !== undefined && status.used !== undefined && equals(resourceList(status.hard), hard) && equals(resourceList(status.used), used)) return
    const store = this.registry!.lookup('', 'v1', 'resourcequotas')!
    await store.update(quota.metadata.namespace, quota.metadata.name!, (current) => ({ ...current, metadata: { ...current.metadata, resourceVersion: quota.metadata.resourceVersion }, status: { hard: toJson(hard), used: toJson(used) } }), {
      subresource: 'status',
      admission: false,
    })
  }

  private async list(group: string, resource: string, namespace: string): Promise<KubeObject[]> {
    const matches = (s: { strategy: { group: string; resource: string; namespaced: boolean } }) => s.strategy.group === group && s.strategy.resource === resource && s.strategy.namespaced
    // A custom resource's versions share its objects: any served version counts them.
    const store = this.registry!.all().find(matches) ?? (await this.registry!.customStores()).find(matches)
    return store ? (await store.list({ namespace })).items : []
  }
}

/** A quota whose status does not yet follow its spec. */
function needsSync(quota: KubeObject): boolean {
  const status = objOf(quota.status)
  if (status.hard === undefined || status.used === undefined) return true
  return !equals(resourceList(status.hard), resourceList(objOf(quota.spec).hard))
}
