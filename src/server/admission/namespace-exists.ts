/**
 * The NamespaceExists admission plugin (the reference's `plugin/pkg/admission/namespace/exists`):
 * a namespaced create, update or delete in a namespace that does not exist is refused with the
 * namespace's NotFound, for clusters that want namespaces declared before use.
 */
import { errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, DELETE, UPDATE } from './attributes.js'
import { forbidden } from './forbidden.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import { isNamespace } from './namespace-kind.js'
import type { PluginInitialization } from './plugins.js'

export const NAMESPACE_EXISTS = 'NamespaceExists'

export class NamespaceExists implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE, DELETE)

  constructor(private readonly init: PluginInitialization) {}

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.namespace === '' || isNamespace(attributes)) return
    const stores = this.init.stores()
    if (!stores) throw forbidden(attributes, 'not yet ready to handle request')
    // Read from the store, as the reference does when its cache has not seen the namespace.
    let found: unknown
    try {
      found = await stores.store.get(`/namespaces/${attributes.namespace}`)
    } catch (err) {
      throw errors.internal(err instanceof Error ? err.message : String(err))
    }
    if (!found) throw errors.notFound({ group: '', resource: 'namespaces' }, attributes.namespace)
  }
}
