/**
 * The NamespaceAutoProvision admission plugin (the reference's
 * `plugin/pkg/admission/namespace/autoprovision`): a namespaced create in a namespace that does
 * not exist creates the namespace first, for clusters that do not want namespaces declared
 * before use. A dry run creates nothing.
 */
import { ApiError } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type MutationInterface, handlesOnly } from './interfaces.js'
import { isNamespace } from './namespace-kind.js'
import type { PluginInitialization } from './plugins.js'

export const NAMESPACE_AUTO_PROVISION = 'NamespaceAutoProvision'

export class NamespaceAutoProvision implements MutationInterface {
  readonly handles = handlesOnly(CREATE)

  constructor(private readonly init: PluginInitialization) {}

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.dryRun) return
    // A namespace in the attributes means a namespaced resource (the route was found).
    if (attributes.namespace === '' || isNamespace(attributes)) return
    const stores = this.init.stores()
    const namespaces = stores?.lookup('', 'v1', 'namespaces')
    if (!stores || !namespaces) throw forbidden(attributes, 'not yet ready to handle request')
    if (await stores.store.get(`/namespaces/${attributes.namespace}`)) return
    try {
      await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: attributes.namespace }, status: {} })
    } catch (err) {
      // Made meanwhile by another request: as good as made here.
      if (err instanceof ApiError && err.status.reason === 'AlreadyExists') return
      throw forbidden(attributes, err instanceof Error ? err.message : String(err))
    }
  }
}
