/**
 * Local APIServices for the group versions custom resources serve (the reference's
 * crdregistration controller, pkg/controlplane/controller/crdregistration, over the aggregator's
 * autoregistration): each served version of a CRD whose group is not a built-in one gets
 * `<version>.<group>` with group priority 1000 and version priority 100, labelled
 * `kube-aggregator.kubernetes.io/automanaged: "true"`; one no CRD serves any more is deleted.
 */
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import { ApiError } from '../api/status-errors.js'
import type { Controller, ControllerContext } from './controller.js'

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

const MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged'

export class CRDRegistrationController implements Controller {
  readonly name = 'crd-registration-controller'
  private unsubscribe: (() => void) | undefined
  /** One sync at a time; a change during one asks for another. */
  private running: Promise<void> | undefined
  private again = false

  start(ctx: ControllerContext): void {
    this.unsubscribe = ctx.registry.onChange((change) => {
      if (change.strategy.group === 'apiextensions.k8s.io' && change.strategy.resource === 'customresourcedefinitions') this.enqueue(ctx)
    })
    this.enqueue(ctx)
  }

  stop(): void {
    this.unsubscribe?.()
  }

  private enqueue(ctx: ControllerContext): void {
    if (this.running) {
      this.again = true
      return
    }
    this.running = sync(ctx.registry)
      .catch((err: Error) => ctx.log(2, `crd registration: ${err.message}`))
      .finally(() => {
        this.running = undefined
        if (this.again) {
          this.again = false
          this.enqueue(ctx)
        }
      })
  }
}

/** The APIServices the CRDs ask for, created; the managed ones no CRD asks for, deleted. */
async function sync(registry: Registry): Promise<void> {
  const crds = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')
  const apiServices = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices')
  if (!crds || !apiServices) return
  const builtinGroups = new Set(registry.all().filter((s) => !s.strategy.customResource).map((s) => s.strategy.group))
  const wanted = new Map<string, { group: string; version: string }>()
  for (const crd of (await crds.list()).items) {
    if (crd.metadata.deletionTimestamp) continue
    const spec = obj((crd as Json).spec)
    const group = String(spec.group ?? '')
    if (builtinGroups.has(group)) continue
    for (const v of arr(spec.versions).map(obj)) if (v.served === true) wanted.set(`${String(v.name)}.${group}`, { group, version: String(v.name) })
  }
  const existing = new Map<string, KubeObject>((await apiServices.list()).items.map((o) => [o.metadata.name ?? '', o]))
  for (const [name, { group, version }] of wanted) {
    if (existing.has(name)) continue
    try {
      await apiServices.create({
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name, labels: { [MANAGED_LABEL]: 'true' } },
        spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 },
      })
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err
    }
  }
  for (const [name, o] of existing) {
    if (o.metadata.labels?.[MANAGED_LABEL] !== 'true' || wanted.has(name)) continue
    try {
      await apiServices.delete(undefined, name)
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
    }
  }
}
