/**
 * The reference's EquivalentResourceMapper as `matchPolicy: Equivalent` uses it: the other
 * served versions of the same group and resource, with their kinds. (The reference also relates
 * resources across groups that share storage; none of those are served here.) The request's
 * object is not converted to the equivalent version: every built-in kind here is served in one
 * version, so only custom resources with several served versions are seen in another one.
 */
import type { PluginInitialization } from '../plugins.js'
import { type GroupVersionKind, servedKinds } from './kinds.js'

interface Equivalent {
  readonly resource: { group: string; version: string; resource: string }
  readonly kind: GroupVersionKind
}

export async function equivalentResources(init: PluginInitialization, resource: { group: string; version: string; resource: string }, subresource: string): Promise<Equivalent[]> {
  const stores = init.stores()
  // Another version's subresource may be of another kind (a Scale); only the object and its status keep the kind.
  if (!stores || (subresource !== '' && subresource !== 'status')) return []
  return (await servedKinds(stores))
    .filter((s) => s.group === resource.group && s.resource === resource.resource && s.version !== resource.version)
    .map((s) => ({ resource: { group: s.group, version: s.version, resource: s.resource }, kind: { group: s.group, version: s.version, kind: s.kind } }))
}
