/**
 * How NodeRestriction reads the objects a request names (the reference's pod and node
 * listers): an object that does not exist is the 404 itself, as the reference returns the
 * lister's NotFound; any other failure to read is the request's Forbidden.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { type ApiError, errors } from '../../api/status-errors.js'
import type { AdmissionAttributes } from '../attributes.js'
import { forbidden } from '../forbidden.js'
import type { PluginInitialization } from '../plugins.js'

export async function readObject(init: PluginInitialization, a: AdmissionAttributes, resource: 'pods' | 'nodes', namespace: string | undefined, name: string): Promise<KubeObject> {
  const store = init.stores()?.lookup('', 'v1', resource)
  if (!store) throw errors.notFound({ group: '', resource }, name)
  try {
    return await store.get(namespace, name)
  } catch (err) {
    if ((err as ApiError).code === 404) throw err
    throw forbidden(a, (err as Error).message)
  }
}
