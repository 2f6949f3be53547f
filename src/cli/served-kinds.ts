/**
 * Every kind a default `server start` serves (`--runtime-config` and the feature gates at their
 * defaults), as its discovery lists them. Loading it loads every kind's strategy, so the offline
 * `auth` commands import it only for a type the generated table of built-in resources lacks
 * (and their fast entry has it as a side bundle: scripts/bundle-commands.js).
 */
import { KINDS } from '../server/api/kinds/index.js'
import { enabledKinds } from '../server/api/runtime-config.js'
import type { DiscoveredResource } from '../core/auth-can-i/resources.js'

export function servedKinds(): readonly DiscoveredResource[] {
  return enabledKinds(KINDS, [])
}
