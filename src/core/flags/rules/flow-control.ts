/** Priority and fairness against the in-flight limits and the runtime configuration. */
import type { KeyValue } from '../../options/types.js'
import type { Rule } from '../rule.js'

/** The reference looks for these settings in precedence order; the first present decides. */
const APF_KEYS = ['flowcontrol.apiserver.k8s.io/v1', 'api/ga', 'api/all']

export const flowControlRules: Rule[] = [
  {
    id: 'APF-1',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.value<boolean>('enable-priority-and-fairness') === false) return
      const settings = new Map<string, string>()
      for (const kv of ctx.value<KeyValue[]>('runtime-config') ?? []) settings.set(kv.key, kv.value ?? '')
      for (const key of APF_KEYS) {
        const value = settings.get(key)
        if (value === 'true') return
        if (value === 'false') {
          report.error(`--runtime-config=${key}=false conflicts with --enable-priority-and-fairness=true`, {
            option: '--runtime-config',
            value: `${key}=false`,
            remedy: `add flowcontrol.apiserver.k8s.io/v1=true to --runtime-config, or give --enable-priority-and-fairness=false`,
          })
          return
        }
      }
    },
  },
]

export const flowControlConfigRules: Rule[] = [
  {
    id: 'APF-2',
    phase: 'config',
    check(ctx, report) {
      if (ctx.value<boolean>('enable-priority-and-fairness') === false) return
      const reads = ctx.value<number>('max-requests-inflight') ?? 400
      const writes = ctx.value<number>('max-mutating-requests-inflight') ?? 200
      if (reads + writes <= 0) {
        report.error(
          `invalid configuration: MaxRequestsInFlight=${reads} and MaxMutatingRequestsInFlight=${writes}; they must add up to something positive`,
          { option: '--max-requests-inflight', remedy: 'raise the limits, or give --enable-priority-and-fairness=false where 0 means no limit' },
        )
      }
    },
  },
]
