/**
 * TYPE[.group] as kubectl's `auth can-i` resolves it (resourceFor over the discovery RESTMapper
 * with its shortcut expander): lower-cased, `resource.version.group` tried fully specified
 * first, then `resource.group`; a short name, the singular or the plural of a served resource
 * matches, the first group in discovery's order wins. Offline, discovery is the server's own
 * table of built-in resources (given by the caller), as a default `server start` serves them.
 */
export interface DiscoveredResource {
  group: string
  version: string
  resource: string
  singular: string
  namespaced: boolean
  shortNames: readonly string[]
}

export interface Discovery {
  /** Served resources, in discovery's order (group priority, then preferred version): most of them, at hand. */
  resources: readonly DiscoveredResource[]
  /** Every served resource, in discovery's order, for a type not among the above (loaded then: it costs more). */
  all?: () => Promise<readonly DiscoveredResource[]>
}

export interface ResolvedResource {
  group: string
  resource: string
  /** Undefined when discovery does not know it (kubectl then sends the argument as it is). */
  known?: DiscoveredResource
}

/** What kubectl never warns about: served resources discovery does not list (impersonation's users and groups). */
const NON_STANDARD_RESOURCE_NAMES = new Set(['users', 'groups'])

function find(resources: readonly DiscoveredResource[], resource: string, group: string | undefined, version?: string): DiscoveredResource | undefined {
  const matches = (r: DiscoveredResource) => (group === undefined || r.group === group) && (version === undefined || r.version === version)
  const expanded = resources.find((r) => matches(r) && r.shortNames.includes(resource))
  if (expanded) return expanded
  return resources.find((r) => matches(r) && (r.resource === resource || r.singular === resource))
}

/** schema.ParseResourceArg then the RESTMapper over `resources`. */
function lookup(resources: readonly DiscoveredResource[], lower: string): DiscoveredResource | undefined {
  const parts = lower.split('.')
  // Three parts or more may be resource.version.group.
  if (parts.length >= 3) {
    const known = find(resources, parts[0]!, parts.slice(2).join('.'), parts[1])
    if (known) return known
  }
  const dot = lower.indexOf('.')
  return dot === -1 ? find(resources, lower, undefined) : find(resources, lower.slice(0, dot), lower.slice(dot + 1))
}

/** Resolves the TYPE of `VERB TYPE[/NAME]`; `warn` gets kubectl's warning for an unknown type. */
export async function resolveResource(discovery: Discovery, arg: string, warn: (message: string) => void): Promise<ResolvedResource> {
  if (arg === '*') return { group: '', resource: '*' }
  const lower = arg.toLowerCase()
  const known = lookup(discovery.resources, lower) ?? (discovery.all ? lookup(await discovery.all(), lower) : undefined)
  if (known) return { group: known.group, resource: known.resource, known }
  const dot = lower.indexOf('.')
  const resource = dot === -1 ? lower : lower.slice(0, dot)
  const group = dot === -1 ? undefined : lower.slice(dot + 1)
  const groupResource = group === undefined ? resource : `${resource}.${group}`
  if (!NON_STANDARD_RESOURCE_NAMES.has(groupResource)) {
    warn(group === undefined ? `the server doesn't have a resource type '${resource}'` : `the server doesn't have a resource type '${resource}' in group '${group}'`)
  }
  return { group: '', resource: arg }
}
