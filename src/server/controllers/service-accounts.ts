/**
 * The `default` service account of every namespace, as the reference's controller manager
 * (ServiceAccountsController) keeps it: created with each new namespace, and for namespaces
 * that lack one when the registry starts, so that `kubectl create token default` and pods
 * without a serviceAccountName work. (The system namespaces get theirs at bootstrap.) It
 * follows the registry's namespace creations.
 */
import { isNamespaces } from '../api/registry/deletion.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import type { Controller, ControllerContext } from './controller.js'

export const DEFAULT_SERVICE_ACCOUNT = 'default'

export class ServiceAccountsController implements Controller {
  readonly name = 'serviceaccount-controller'
  private registry: Registry | undefined
  private log: ControllerContext['log'] = () => {}
  private unsubscribe: (() => void) | undefined

  start(ctx: ControllerContext): void {
    this.registry = ctx.registry
    this.log = ctx.log
    this.unsubscribe = ctx.registry.onChange((change) => {
      if (isNamespaces(change.strategy) && change.type === 'created') void this.observe(change.object)
    })
    if (this.namespaces() && this.serviceAccounts()) {
      this.sweep().catch((err) => ctx.log(2, `service accounts: ${(err as Error).message}`))
    }
  }

  stop(): void {
    this.unsubscribe?.()
    this.unsubscribe = undefined
  }

  private namespaces(): GenericStore | undefined {
    return this.registry?.lookup('', 'v1', 'namespaces')
  }

  private serviceAccounts(): GenericStore | undefined {
    return this.registry?.lookup('', 'v1', 'serviceaccounts')
  }

  /** Every namespace that is not being deleted, once. */
  private async sweep(): Promise<void> {
    const namespaces = this.namespaces()
    if (!namespaces) return
    const { items } = await namespaces.list()
    for (const ns of items) await this.observe(ns)
  }

  /** A namespace was written: a live one gets its default service account. */
  private async observe(namespace: KubeObject): Promise<void> {
    const sas = this.serviceAccounts()
    const name = namespace.metadata.name
    if (!sas || !name || namespace.metadata.deletionTimestamp) return
    try {
      await sas.get(name, DEFAULT_SERVICE_ACCOUNT)
      return
    } catch {
      // Absent: created below.
    }
    try {
      await sas.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: name } })
    } catch (err) {
      // Created meanwhile, or the namespace is going away: nothing to do.
      this.log(4, `service accounts: default in ${name}: ${(err as Error).message}`)
    }
  }
}
