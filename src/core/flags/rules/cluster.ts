/**
 * The checks of `client cluster start`'s own options: kube-controller-manager's refusal of an
 * unknown controller name, the kubelet's taint syntax, the clock's time and the pods' CIDR.
 */
import { unknownControllerErrors } from '../../options/kcm-controllers.js'
import type { Rule } from '../rule.js'
import { parseTaint } from '../../options/taints.js'

export const clusterRules: Rule[] = [
  {
    id: 'CLUSTER-CONTROLLERS',
    phase: 'validate',
    check(ctx, report) {
      for (const message of unknownControllerErrors(ctx.list('controllers'))) report.error(message, { option: '--controllers' })
    },
  },
  {
    id: 'CLUSTER-TAINTS',
    phase: 'validate',
    check(ctx, report) {
      for (const text of ctx.list('register-with-taints')) {
        const parsed = parseTaint(text)
        if (typeof parsed === 'string') report.error(parsed, { option: '--register-with-taints', value: text })
      }
    },
  },
  {
    id: 'CLUSTER-CLOCK',
    phase: 'validate',
    check(ctx, report) {
      const text = ctx.value<string>('clock')
      if (text && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text)) {
        report.error(`invalid --clock ${JSON.stringify(text)}: want an RFC 3339 time such as 2030-01-01T00:00:00Z`, { option: '--clock', value: text })
      }
    },
  },
  {
    id: 'CLUSTER-CIDR',
    phase: 'validate',
    check(ctx, report) {
      const text = ctx.value<string>('cluster-cidr') ?? ''
      const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(text)
      if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 24) {
        report.error(`invalid --cluster-cidr ${JSON.stringify(text)}: want an IPv4 CIDR of /24 or wider`, { option: '--cluster-cidr', value: text })
      }
    },
  },
]
