/** Generic server-run options (the reference's first group of P5 checks). */
import { goRegexpError } from '../../options/go-regexp.js'
import { BINARY_VERSION } from '../context.js'
import type { Rule } from '../rule.js'

const nonNegative = (id: string, name: string, message: string): Rule => ({
  id,
  phase: 'validate',
  check(ctx, report) {
    const value = ctx.value<number>(name)
    if (value !== undefined && value < 0) report.error(message, { option: `--${name}`, value: ctx.text(name), remedy: 'give zero or a positive value' })
  },
})

const CORS_HELP =
  'List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with \'^\' or including the \'//\' prefix, and by anchoring to the end with \'$\' or including the \':\' port separator suffix. Examples of valid expressions are \'//example\\.com(:|$)\' and \'^https://example\\.com(:|$)\''

export const serverRunRules: Rule[] = [
  nonNegative('SRV-1', 'livez-grace-period', '--livez-grace-period can not be a negative value'),
  nonNegative('SRV-2', 'max-requests-inflight', '--max-requests-inflight can not be negative value'),
  nonNegative('SRV-3', 'max-mutating-requests-inflight', '--max-mutating-requests-inflight can not be negative value'),
  nonNegative('SRV-4', 'request-timeout', '--request-timeout can not be negative value'),
  {
    id: 'SRV-5',
    phase: 'validate',
    check(ctx, report) {
      const chance = ctx.value<number>('goaway-chance') ?? 0
      if (!(chance >= 0 && chance <= 0.02)) {
        report.error('--goaway-chance can not be less than 0 or greater than 0.02', {
          option: '--goaway-chance',
          value: ctx.text('goaway-chance'),
          remedy: 'choose a fraction from 0 (off) to 0.02; 0.001 is a good start',
        })
      }
    },
  },
  nonNegative('SRV-6', 'min-request-timeout', '--min-request-timeout can not be negative value'),
  nonNegative('SRV-7', 'storage-initialization-timeout', '--storage-initialization-timeout can not be negative value'),
  nonNegative('SRV-8', 'shutdown-delay-duration', '--shutdown-delay-duration can not be negative value'),
  nonNegative(
    'SRV-9',
    'shutdown-watch-termination-grace-period',
    'shutdown-watch-termination-grace-period, if provided, can not be a negative value',
  ),
  {
    id: 'SRV-10',
    phase: 'validate',
    check(ctx, report) {
      for (const item of ctx.list('strict-transport-security-directives')) {
        const option = '--strict-transport-security-directives'
        if (item.trim() === '') {
          report.error('empty value in strict-transport-security-directives', { option, remedy: 'remove the empty item' })
          continue
        }
        // Compared as given, untrimmed, as the reference does.
        if (item !== 'includeSubDomains' && item !== 'preload' && !/^max-age=[^=]*$/.test(item)) {
          report.error(
            '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information',
            { option, value: item },
          )
        }
      }
    },
  },
  {
    id: 'SRV-12',
    phase: 'validate',
    check(ctx, report) {
      const option = '--cors-allowed-origins'
      for (const item of ctx.list('cors-allowed-origins')) {
        if (item === '') {
          report.error(`empty value in --cors-allowed-origins, help: ${CORS_HELP}`, { option, remedy: 'remove the empty item' })
          continue
        }
        let cause = goRegexpError(item)
        if (!cause && ((!item.includes('^') && !item.includes('//')) || (!item.includes('$') && !item.includes(':')))) {
          cause = 'regular expression does not pin to start/end of host in the origin header'
        }
        if (cause) {
          report.error(`--cors-allowed-origins has an invalid regular expression: ${cause}, help: ${CORS_HELP}`, {
            option,
            value: item,
            remedy: "anchor the expression: start with '^' or '//', end with '$' or ':', e.g. //example\\.com(:|$)",
          })
        }
      }
    },
  },
  {
    id: 'SRV-14',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.emulatedMinor !== BINARY_VERSION.minor) return
      for (const [name, field] of [
        ['emulation-forward-compatible', 'EmulationForwardCompatible'],
        ['runtime-config-emulation-forward-compatible', 'RuntimeConfigEmulationForwardCompatible'],
      ] as const) {
        if (ctx.value<boolean>(name)) {
          report.error(`ServerRunOptions.${field} cannot be set to true if the emulation version is the same as the binary version`, {
            option: `--${name}`,
            remedy: `drop --${name}, or emulate an earlier version with --emulated-version`,
          })
        }
      }
    },
  },
  {
    id: 'SRV-PROFILING',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.value<boolean>('contention-profiling') && ctx.value<boolean>('profiling') === false) {
        report.warning('--contention-profiling has no effect while --profiling is false', {
          option: '--contention-profiling',
          remedy: 'enable --profiling or drop --contention-profiling',
        })
      }
    },
  },
]
