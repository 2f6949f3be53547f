/**
 * The `default` service account of every namespace, as the reference's controller manager
 * (ServiceAccountsController) keeps it: created with each new namespace, and for namespaces
 * that lack one when the registry starts, so that `kubectl create token default` and pods
 * without a serviceAccountName work. (The system namespaces get theirs at bootstrap.)
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'

export const DEFAULT_SERVICE_ACCOUNT = 'default'

export class ServiceAccountsController {
  constructor(
    private readonly namespaces: () => GenericStore | undefined,
    private readonly serviceAccounts: () => GenericStore | undefined,
    private readonly log: (level: number, msg: string) => void,
  ) {}

  /** Every namespace that is not being deleted, once. */
  async sweep(): Promise<void> {
    const namespaces = this.namespaces()
    if (!namespaces) return
    const { items } = await namespaces.list()
    for (const ns of items) await this.observe(ns)
  }

  /** A namespace was written: a live one gets its default service account. */
  async observe(namespace: KubeObject): Promise<void> {
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
