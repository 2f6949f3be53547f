/**
 * The reference's EquivalentResourceMapper as `matchPolicy: Equivalent` uses it: the other
 * served versions of the same group and resource, with their kinds. (The reference also relates
 * resources across groups that share storage; none of those are served here.) The request's
 * object is not converted to the equivalent version: every built-in kind here is served in one
 * version, so only custom resources with several served versions are seen in another one.
 */
import { RESOURCES } from '../../api/generated/resources.js'
import type { Strategy } from '../../api/registry/strategy.js'
import type { PluginInitialization } from '../plugins.js'
import type { GroupVersionKind } from './kinds.js'

interface Equivalent {
  readonly resource: { group: string; version: string; resource: string }
  readonly kind: GroupVersionKind
}

interface KindsAware {
  kinds(): Promise<Strategy[]>
}

export async function equivalentResources(init: PluginInitialization, resource: { group: string; version: string; resource: string }, subresource: string): Promise<Equivalent[]> {
  const stores = init.stores()
  if (!stores) return []
  const served: Array<{ group: string; version: string; resource: string; kind: string }> =
    typeof (stores as Partial<KindsAware>).kinds === 'function' ? await (stores as unknown as KindsAware).kinds() : RESOURCES.filter((r) => stores.lookup(r.group, r.version, r.resource))
  return served
    .filter((s) => s.group === resource.group && s.resource === resource.resource && s.version !== resource.version)
    .filter(() => subresource === '' || subresource === 'status')
    .map((s) => ({ resource: { group: s.group, version: s.version, resource: s.resource }, kind: { group: s.group, version: s.version, kind: s.kind } }))
}
