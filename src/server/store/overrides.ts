import { InvalidError } from './errors.js'

/** One `--store-servers-overrides` entry: the resource's data lives on other etcd servers. */
export interface StoreOverride {
  /** API group; '' is the core group (written `/events#…`). */
  readonly group: string
  readonly resource: string
  readonly servers: readonly string[]
}

const FORMAT =
  'must be of format: group/resource#servers, where servers are URLs, semicolon separated (core group: /resource#servers)'

/**
 * Parses `--store-servers-overrides` entries, `group/resource#url;url`, like the reference's
 * `--etcd-servers-overrides`. Entries may also arrive comma-joined in one string. A later
 * entry for the same group/resource replaces an earlier one.
 */
export function parseOverrides(entries: readonly string[]): StoreOverride[] {
  const byResource = new Map<string, StoreOverride>()
  for (const raw of entries.flatMap(e => e.split(','))) {
    const entry = raw.trim()
    if (entry === '') continue
    const tokens = entry.split('#')
    if (tokens.length !== 2) throw new InvalidError(`--store-servers-overrides entry "${entry}" is invalid: ${FORMAT}`)
    const [groupResource, serverList] = tokens as [string, string]
    const parts = groupResource.split('/')
    if (parts.length !== 2 || parts[1] === '') {
      throw new InvalidError(`--store-servers-overrides entry "${entry}" is invalid: ${FORMAT}`)
    }
    const [group, resource] = parts as [string, string]
    const servers = serverList
      .split(';')
      .map(s => s.trim())
      .filter(s => s !== '')
    if (servers.length === 0) {
      throw new InvalidError(`--store-servers-overrides entry "${entry}" names no servers: ${FORMAT}`)
    }
    for (const server of servers) {
      let url: URL | undefined
      try {
        url = new URL(server)
      } catch {
        url = undefined
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
        throw new InvalidError(
          `--store-servers-overrides entry "${entry}": "${server}" is not an http:// or https:// URL`,
        )
      }
    }
    const id = `${group}/${resource}`
    byResource.delete(id)
    byResource.set(id, { group, resource, servers })
  }
  return [...byResource.values()]
}

/** Where a resource's keys live, relative to the store prefix. */
export type KeyPrefixFor = (group: string, resource: string) => string

/**
 * The reference's layout: built-in resources (core, groups without a dot, `*.k8s.io`) live
 * at `/<resource>/…`, other groups (custom resources) at `/<group>/<resource>/…`.
 */
export const defaultKeyPrefix: KeyPrefixFor = (group, resource) => {
  const builtIn = group === '' || !group.includes('.') || group.endsWith('.k8s.io')
  return builtIn ? `/${resource}/` : `/${group}/${resource}/`
}
