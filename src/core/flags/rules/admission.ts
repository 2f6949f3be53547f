/** Admission plugin lists (spec 4.5). */
import { ADMISSION_PLUGINS } from '../../options/enums.js'
import type { Rule } from '../rule.js'
import { suggest } from '../suggest.js'

const LISTS = ['admission-control', 'enable-admission-plugins', 'disable-admission-plugins'] as const

export const admissionRules: Rule[] = [
  {
    id: 'ADM-1',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.has('admission-control') && (ctx.has('enable-admission-plugins') || ctx.has('disable-admission-plugins'))) {
        report.error('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive', {
          option: '--admission-control',
          remedy: 'move the plugins of --admission-control into --enable-admission-plugins',
        })
      }
      const known = ADMISSION_PLUGINS as readonly string[]
      for (const list of LISTS) {
        for (const plugin of ctx.list(list)) {
          if (known.includes(plugin)) continue
          const guess = suggest(plugin, known)
          report.error(`${list} plugin ${JSON.stringify(plugin)} is unknown`, {
            option: `--${list}`,
            value: plugin,
            ...(guess ? { remedy: `did you mean ${guess}?` } : {}),
          })
        }
      }
      const disabled = new Set(ctx.list('disable-admission-plugins'))
      const both = ctx.list('enable-admission-plugins').filter((p) => disabled.has(p))
      if (both.length > 0) {
        report.error(`[${[...new Set(both)].sort().join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`, {
          option: '--disable-admission-plugins',
          value: both.join(','),
          remedy: 'name each plugin in one list only',
        })
      }
    },
  },
]
