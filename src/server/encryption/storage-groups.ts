/**
 * Which group a built-in resource's keys belong to, for matching the configuration's
 * `resource.group` entries: keys carry only the resource (`/deployments/…`). Where groups
 * share a resource's keys (events and events.k8s.io events) the core group owns them, as in
 * the reference, whose configuration must say `events`.
 */
import type { Strategy } from '../api/registry/strategy.js'
import type { StorageGroupOf } from './encrypting-store.js'

export function storageGroups(kinds: readonly Strategy[]): StorageGroupOf {
  const groups = new Map<string, string>()
  for (const k of kinds) {
    if (!groups.has(k.resource) || k.group === '') groups.set(k.resource, k.group)
  }
  return (resource) => groups.get(resource)
}
