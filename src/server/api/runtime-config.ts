/**
 * `--runtime-config` applied to the served kinds, in the reference's order: api/all first,
 * then api/ga, api/beta and api/alpha, then `<group>/<version>`, and a `<group>/<version>/<resource>`
 * entry decides for that one resource. `v1` (and `api/v1`) name the legacy core group. A missing
 * value means true. Custom resources are not switched by it (only their CRD API is).
 */
import { parseGoBool } from '../../core/options/go-syntax.js'
import type { KeyValue } from '../../core/options/types.js'
import { versionStability } from '../../core/options/api-groups.js'
import type { Strategy } from './registry/strategy.js'

export interface ApiEnablement {
  /** Whether a group version serves anything by default (GA on, beta and alpha off). */
  versionEnabled(group: string, version: string): boolean
  resourceEnabled(group: string, version: string, resource: string): boolean
}

function boolOf(value: string | undefined): boolean {
  if (value === undefined || value === '') return true
  try {
    return parseGoBool(value)
  } catch {
    // The flags validator has rejected bad values before the server starts.
    return true
  }
}

/** `v1`, `api/v1`, `v1/pods` are the legacy group: `/v1`, `/v1/pods`. */
function normalisedKey(key: string): string {
  if (key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/')) return `/${key.replace(/^api\//, '')}`
  return key
}

export function apiEnablement(runtimeConfig: readonly KeyValue[]): ApiEnablement {
  const global = new Map<string, boolean>()
  const versions = new Map<string, boolean>()
  const resources = new Map<string, boolean>()
  for (const kv of runtimeConfig) {
    const key = normalisedKey(kv.key)
    if (key === 'api/legacy') continue
    const value = boolOf(kv.value)
    if (key === 'api/all' || key === 'api/ga' || key === 'api/beta' || key === 'api/alpha') global.set(key, value)
    else if (key.split('/').length === 2) versions.set(key, value)
    else if (key.split('/').length === 3) resources.set(key, value)
  }
  const versionEnabled = (group: string, version: string): boolean => {
    const explicit = versions.get(`${group}/${version}`)
    if (explicit !== undefined) return explicit
    const stability = versionStability(version)
    const byStability = stability ? global.get(`api/${stability}`) : undefined
    if (byStability !== undefined) return byStability
    const all = global.get('api/all')
    if (all !== undefined) return all
    return stability === 'ga'
  }
  return {
    versionEnabled,
    resourceEnabled: (group, version, resource) => resources.get(`${group}/${version}/${resource}`) ?? versionEnabled(group, version),
  }
}

/**
 * The built-in kinds `--runtime-config` leaves on: GA ones unless switched off, beta and
 * alpha ones when switched on (`api/all`, `api/beta`, `<group>/<version>`, ...) and their
 * feature gate, if the reference ties them to one, is on.
 */
export function enabledKinds(kinds: readonly Strategy[], runtimeConfig: readonly KeyValue[], featureGates: ReadonlyMap<string, boolean> = new Map()): Strategy[] {
  const enablement = apiEnablement(runtimeConfig)
  return kinds.filter((k) => enablement.resourceEnabled(k.group, k.version, k.resource) && (k.featureGate === undefined || featureGates.get(k.featureGate) === true))
}

/**
 * The kinds the emulated release served by default: those GA since that minor (or before),
 * without the subresources added later. Undefined (or a negative minor): every kind.
 */
export function servedAtVersion(kinds: readonly Strategy[], emulatedMinor: number | undefined): Strategy[] {
  if (emulatedMinor === undefined || emulatedMinor < 0) return [...kinds]
  return kinds
    .filter((k) => (k.since ?? 0) <= emulatedMinor)
    .map((k) => {
      const later = Object.entries(k.subresourcesSince ?? {}).filter(([, since]) => since > emulatedMinor).map(([sub]) => sub)
      return later.length === 0 ? k : { ...k, subresources: (k.subresources ?? []).filter((s) => !later.includes(s)) }
    })
}
