/** Metrics, peers and the generic value constraints of the catalogue. */
import { BINARY_VERSION } from '../context.js'
import type { Rule } from '../rule.js'

/** Options whose constraints are checked by a rule with the reference's own message. */
const CHECKED_ELSEWHERE = new Set([
  'secure-port',
  'goaway-chance',
  'tls-min-version',
  'tls-cipher-suites',
  'storage-media-type',
  'authorization-mode',
  'admission-control',
  'enable-admission-plugins',
  'disable-admission-plugins',
  'audit-log-mode',
  'audit-webhook-mode',
  'audit-log-format',
  'logging-format',
  'endpoint-reconciler-type',
])

export const miscRules: Rule[] = [
  {
    id: 'MISC-1',
    phase: 'validate',
    check(ctx, report) {
      if (ctx.gate('UnknownVersionInteroperabilityProxy')) return
      for (const name of ['peer-ca-file', 'peer-advertise-ip', 'peer-advertise-port']) {
        if (ctx.text(name)) {
          report.error(`--${name} requires UnknownVersionInteroperabilityProxy feature to be turned on`, {
            option: `--${name}`,
            remedy: 'add UnknownVersionInteroperabilityProxy=true (and StorageVersionAPI=true) to --feature-gates',
          })
        }
      }
    },
  },
  {
    id: 'MISC-9',
    phase: 'validate',
    check(ctx, report) {
      const version = ctx.text('show-hidden-metrics-for-version')
      const previous = `${BINARY_VERSION.major}.${BINARY_VERSION.minor - 1}`
      if (version && version !== previous) {
        report.error(
          `metrics.showHiddenMetricsForVersion: Invalid value: ${JSON.stringify(version)}: must be omitted or have the value '${previous}'; only the previous minor version is allowed`,
          { option: '--show-hidden-metrics-for-version', value: version },
        )
      }
    },
  },
  {
    id: 'METRIC-LABELS',
    phase: 'validate',
    check(ctx, report) {
      const labels = ctx.value<Record<string, string>>('allow-metric-labels') ?? {}
      for (const key of Object.keys(labels)) {
        if (key.split(',').length !== 2 || key.split(',').some((part) => part.trim() === '')) {
          report.error(`--allow-metric-labels key ${JSON.stringify(key)} must be <MetricName>,<LabelName>`, {
            option: '--allow-metric-labels',
            value: key,
            remedy: "e.g. --allow-metric-labels='apiserver_request_total,verb'='GET,LIST'",
          })
        }
      }
    },
  },
  {
    id: 'CONSTRAINT',
    phase: 'validate',
    check(ctx, report) {
      for (const [name, parsed] of ctx.parsed.options) {
        const c = parsed.spec.constraints
        if (!c || CHECKED_ELSEWHERE.has(name)) continue
        const option = `--${name}`
        if (c.oneOf) {
          const items = Array.isArray(parsed.value) ? (parsed.value as string[]) : [String(parsed.value)]
          for (const item of items) {
            if (!c.oneOf.includes(item)) {
              report.error(`${option} ${JSON.stringify(item)} is not supported; allowed values: ${c.oneOf.join(', ')}`, { option, value: item })
            }
          }
        }
        if (typeof parsed.value === 'number') {
          if ((c.min !== undefined && parsed.value < c.min) || (c.max !== undefined && parsed.value > c.max)) {
            report.error(`${option} ${parsed.value} must be between ${c.min ?? '-∞'} and ${c.max ?? '∞'}, inclusive`, { option, value: String(parsed.value) })
          }
        }
      }
    },
  },
]
