/**
 * `--runtime-config` applied to the served kinds, in the reference's order: api/all first,
 * then api/ga, api/beta and api/alpha, then `<group>/<version>`, and a `<group>/<version>/<resource>`
 * entry decides for that one resource. `v1` (and `api/v1`) name the legacy core group. A missing
 * value means true. Custom resources are not switched by it (only their CRD API is).
 */
import { parseGoBool } from '../../core/options/go-syntax.js'
import type { KeyValue } from '../../core/options/types.js'
import { versionStability } from '../../core/options/api-groups.js'
import { StartupError } from '../lifecycle/startup-error.js'
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

export interface EmulationOptions {
  /** --emulation-forward-compatible: a kind whose lower-priority beta or GA version is served is served in its later versions too. */
  forwardCompatible?: boolean
  /** --runtime-config-emulation-forward-compatible: versions and resources --runtime-config enables are served even if introduced later. */
  runtimeConfigForwardCompatible?: boolean
  runtimeConfig?: readonly KeyValue[]
}

/** A version's place in its group's priority: GA first (v2 before v1), then beta, then alpha. */
function versionPriority(version: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version)
  if (!m) return -1
  const level = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0
  return level * 1e6 + Number(m[1]) * 1e3 + Number(m[3] ?? 0)
}

/** The --runtime-config entries that name a group version or a resource with true, normalised. */
function explicitlyEnabled(runtimeConfig: readonly KeyValue[]): { versions: Set<string>; resources: Set<string> } {
  const versions = new Set<string>()
  const resources = new Set<string>()
  for (const kv of runtimeConfig) {
    const key = normalisedKey(kv.key)
    const parts = key.split('/')
    if (key.startsWith('api/')) continue
    const set = parts.length === 2 ? versions : parts.length === 3 ? resources : undefined
    if (!set) continue
    if (boolOf(kv.value)) set.add(key)
    else set.delete(key)
  }
  return { versions, resources }
}

const gvName = (group: string, version: string) => (group === '' ? version : `${group}/${version}`)

/**
 * The kinds the emulated release served by default: those introduced (GA) at that minor or
 * before, without the subresources added later. Undefined (or a negative minor): every kind.
 *
 * As the reference's removeUnintroducedKinds, a kind introduced later is still served when
 * --emulation-forward-compatible is on and a lower-priority non-alpha version of the same
 * resource is served, or when --runtime-config-emulation-forward-compatible is on and
 * --runtime-config enables its version or resource. Without that option, enabling such a
 * resource, or a version all of whose resources came later, is a start-up error.
 */
export function servedAtVersion(kinds: readonly Strategy[], emulatedMinor: number | undefined, options: EmulationOptions = {}): Strategy[] {
  if (emulatedMinor === undefined || emulatedMinor < 0) return [...kinds]
  const current = `1.${emulatedMinor}`
  const explicit = explicitlyEnabled(options.runtimeConfig ?? [])
  // Lowest priority first, so that a resource served in an earlier version is known when a later one is checked.
  const ordered = [...kinds].sort((a, b) => versionPriority(a.version) - versionPriority(b.version))
  const served = new Set<string>()
  const enabledResources = new Set<string>()
  const versionsWithKinds = new Map<string, number>()
  for (const k of ordered) {
    const gv = `${k.group}/${k.version}`
    versionsWithKinds.set(gv, (versionsWithKinds.get(gv) ?? 0) + 1)
    const keep = (() => {
      if ((k.since ?? 0) <= emulatedMinor) return true
      if (options.forwardCompatible && enabledResources.has(`${k.group}/${k.resource}`)) return true
      const resourceKey = `${normalisedKey(gvName(k.group, k.version))}/${k.resource}`.replace(/^\/\//, '/')
      const versionKey = normalisedKey(gvName(k.group, k.version))
      const resourceExplicit = explicit.resources.has(resourceKey)
      if (options.runtimeConfigForwardCompatible && (resourceExplicit || explicit.versions.has(versionKey))) return true
      if (resourceExplicit) {
        throw new StartupError(
          `cannot enable resource ${k.group}/${k.version}, Resource=${k.resource} in runtime-config because it is introduced at 1.${k.since} after the current version ${current}. Consider setting --runtime-config-emulation-forward-compatible=true`,
        )
      }
      return false
    })()
    if (!keep) continue
    served.add(`${gv}/${k.resource}`)
    if (versionPriority(k.version) >= 1e6) enabledResources.add(`${k.group}/${k.resource}`)
  }
  for (const gv of versionsWithKinds.keys()) {
    const [group, version] = [gv.slice(0, gv.lastIndexOf('/')), gv.slice(gv.lastIndexOf('/') + 1)]
    const anyServed = kinds.some((k) => k.group === group && k.version === version && served.has(`${gv}/${k.resource}`))
    if (!anyServed && explicit.versions.has(normalisedKey(gvName(group, version)))) {
      throw new StartupError(
        `cannot enable version ${gvName(group, version)} in runtime-config because all the resources have been introduced after the current version ${current}. Consider setting --runtime-config-emulation-forward-compatible=true`,
      )
    }
  }
  return kinds
    .filter((k) => served.has(`${k.group}/${k.version}/${k.resource}`))
    .map((k) => {
      const later = Object.entries(k.subresourcesSince ?? {}).filter(([, since]) => since > emulatedMinor).map(([sub]) => sub)
      return later.length === 0 ? k : { ...k, subresources: (k.subresources ?? []).filter((s) => !later.includes(s)) }
    })
}
