/**
 * The namespace a plugin reads annotations from, from the store (the reference reads its
 * informer, then the API when the cache misses). A missing one is the namespace's NotFound.
 */
import type { KubeObject } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import type { AdmissionAttributes } from './attributes.js'
import { forbidden } from './forbidden.js'
import type { PluginInitialization } from './plugins.js'

export async function namespaceOf(init: PluginInitialization, attributes: AdmissionAttributes): Promise<KubeObject> {
  const namespaces = init.stores()?.lookup('', 'v1', 'namespaces')
  if (!namespaces) throw forbidden(attributes, 'not yet ready to handle request')
  try {
    return await namespaces.get(undefined, attributes.namespace)
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw errors.internal(err instanceof Error ? err.message : String(err))
  }
}
