/** --runtime-config: which API groups and versions are switched on or off (spec section 9). */
import { API_GROUP_VERSIONS } from '../../options/api-groups.js'
import { parseGoBool } from '../../options/go-syntax.js'
import type { KeyValue } from '../../options/types.js'
import type { ValidationContext } from '../context.js'
import type { Rule } from '../rule.js'

const GLOBAL_KEYS = new Set(['api/all', 'api/ga', 'api/beta', 'api/alpha'])

/** Keys the reference rewrites before checking: the legacy group's spellings, and api/legacy dropped. */
function normalisedEntries(ctx: ValidationContext): KeyValue[] {
  const out: KeyValue[] = []
  for (const kv of ctx.value<KeyValue[]>('runtime-config') ?? []) {
    let key = kv.key
    if (key === 'api/legacy') continue
    if (key === 'v1' || key.startsWith('v1/') || key === 'api/v1' || key.startsWith('api/v1/')) key = `/${key.replace(/^api\//, '')}`
    out.push({ key, value: kv.value })
  }
  return out
}

export const runtimeConfigRules: Rule[] = [
  {
    id: 'API-1',
    phase: 'validate',
    check(ctx, report) {
      const entries = normalisedEntries(ctx)
      const option = '--runtime-config'
      if (entries.length === 1 && entries[0].key === 'api/all' && entries[0].value === 'false') {
        report.error('invalid key with only api/all=false', { option, value: 'api/all=false', remedy: 'also switch on what should be served, e.g. api/all=false,v1=true' })
      }
      const unknownGroups: string[] = []
      for (const { key } of entries) {
        if (GLOBAL_KEYS.has(key)) continue
        const parts = key.split('/')
        if (parts.length < 2 || parts.length > 3) {
          report.error(`runtime-config invalid key ${key}`, { option, value: key, remedy: 'write group/version, group/version/resource, v1 or api/all|ga|beta|alpha' })
          continue
        }
        if (!(parts[0] in API_GROUP_VERSIONS) && !unknownGroups.includes(parts[0])) unknownGroups.push(parts[0])
      }
      if (unknownGroups.length > 0) {
        report.error(`unknown api groups ${unknownGroups.join(',')}`, { option, value: unknownGroups.join(','), remedy: 'name a group the server serves, see `client server start --help`' })
      }
    },
  },
]

/** Values and versions are only read when the server builds its resource configuration (P6). */
export const runtimeConfigValueRules: Rule[] = [
  {
    id: 'API-4',
    phase: 'config',
    check(ctx, report) {
      const option = '--runtime-config'
      for (const { key, value } of normalisedEntries(ctx)) {
        const shown = value === undefined ? key : `${key}=${value}`
        if (GLOBAL_KEYS.has(key)) {
          if (value !== undefined && value !== '' && value !== 'true' && value !== 'false') report.error(`invalid value ${shown}`, { option, value: shown, remedy: 'true or false' })
          continue
        }
        const parts = key.split('/')
        if (parts.length < 2 || parts.length > 3 || !(parts[0] in API_GROUP_VERSIONS)) continue
        if (value !== undefined && value !== '') {
          try {
            parseGoBool(value)
          } catch (err) {
            report.error(`invalid value of ${key}: ${value}, err: ${(err as Error).message}`, { option, value: shown })
            continue
          }
        }
        const groupVersion = parts.slice(0, 2).join('/')
        if (!API_GROUP_VERSIONS[parts[0]].includes(parts[1])) {
          report.error(`group version ${groupVersion.replace(/^\//, '')} that has not been registered`, {
            option,
            value: shown,
            remedy: `versions of ${parts[0] || 'the legacy group'}: ${API_GROUP_VERSIONS[parts[0]].join(', ')}`,
          })
          continue
        }
        if (parts.length === 3 && parts[2] !== parts[2].toLowerCase()) {
          report.error(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(parts[2])}`, {
            option,
            value: shown,
          })
        }
      }
    },
  },
]
