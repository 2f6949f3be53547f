/**
 * The reference's CRD naming condition controller (staging/src/k8s.io/apiextensions-apiserver/
 * pkg/controller/status): the names of a CRD are accepted or refused when it is written (the
 * CRD's status pass); a CRD that goes frees its names, so the other CRDs of its group whose
 * names are not all accepted are looked at again. It follows the registry's CRD deletions; at
 * start it looks at every CRD whose names are not all accepted (a CRD may have gone before).
 */
import { CRD_GROUP, CRD_RESOURCE } from '../api/kinds/crd.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { Controller, ControllerContext } from './controller.js'
import { isConditionTrue, reconcileStatus } from '../api/kinds/crd-conditions.js'

export class CRDNamingController implements Controller {
  /** The reference's queue name. */
  readonly name = 'crd_naming_condition_controller'
  private unsubscribe: (() => void) | undefined

  start(ctx: ControllerContext): void {
    const { registry } = ctx
    if (!registry.crds) return
    this.unsubscribe = registry.onChange((change) => {
      const { group, resource } = change.strategy
      if (group !== CRD_GROUP || resource !== CRD_RESOURCE || change.type !== 'deleted') return
      void reconcileGroupNames(registry, change.object).catch((err: unknown) => ctx.log(2, `crd names: ${(err as Error).message}`))
    })
    void reconcileGroupNames(registry).catch((err: unknown) => ctx.log(2, `crd names: ${(err as Error).message}`))
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }
}

/**
 * A CRD went and freed its names: the naming controller looks again at the other CRDs of its
 * group (of every group without one) whose names are not all accepted.
 */
async function reconcileGroupNames(registry: Registry, deleted?: KubeObject): Promise<void> {
  const crds = registry.crds!
  const groupOf = (crd: KubeObject) => (crd.spec as { group?: unknown } | undefined)?.group
  const { items } = await crds.list()
  for (const crd of items) {
    if ((deleted && groupOf(crd) !== groupOf(deleted)) || isConditionTrue(crd, 'NamesAccepted')) continue
    await crds.rewrite(undefined, crd.metadata.name!, (o) => reconcileStatus(o, items))
  }
}
