/**
 * The plugin's ResourceQuotaConfiguration (the reference's apis/resourcequota and its
 * validation): `limitedResources` names resources whose consumption must be covered by a
 * quota (`matchContains`: the resource names whose usage needs one) and scopes a pod in
 * needs a quota for (`matchScopes`). An entry without `resource` stops the start-up.
 */
import type { ScopeSelectorRequirement } from './scopes.js'

export interface LimitedResource {
  apiGroup: string
  resource: string
  matchContains: string[]
  matchScopes: ScopeSelectorRequirement[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [])

/** The limited resources of the configuration (none without one); throws the reference's validation error. */
export function limitedResourcesOf(pluginConfig: unknown): LimitedResource[] {
  if (!isObj(pluginConfig) || !Array.isArray(pluginConfig.limitedResources)) return []
  const out: LimitedResource[] = []
  const errs: string[] = []
  pluginConfig.limitedResources.forEach((entry, i) => {
    const e = isObj(entry) ? entry : {}
    const resource = typeof e.resource === 'string' ? e.resource : ''
    if (resource === '') errs.push(`limitedResources[${i}].resource: Required value`)
    const matchScopes = Array.isArray(e.matchScopes)
      ? e.matchScopes.filter(isObj).map((s) => ({ scopeName: String(s.scopeName ?? ''), operator: String(s.operator ?? ''), ...(Array.isArray(s.values) ? { values: strings(s.values) } : {}) }))
      : []
    out.push({ apiGroup: typeof e.apiGroup === 'string' ? e.apiGroup : '', resource, matchContains: strings(e.matchContains), matchScopes })
  })
  // An aggregate of one error is that error; of several, the list in brackets.
  if (errs.length === 1) throw new Error(errs[0])
  if (errs.length > 1) throw new Error(`[${errs.join(', ')}]`)
  return out
}
