/** Metrics, peers and the generic value constraints of the catalogue. */
import { readFileSync } from 'node:fs'
import { loadYaml } from '../../util/yaml.js'
import { BINARY_VERSION } from '../context.js'
import type { Rule } from '../rule.js'

/** The reference's metricNameRegex and the allow-list key form (component-base/metrics/options.go). */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const ALLOW_LIST_KEY = /^[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*$/
const ALLOW_LIST_FORMAT = '--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`'

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
    id: 'METRIC-DISABLED',
    phase: 'validate',
    check(ctx, report) {
      const bad = ctx.list('disabled-metrics').find((name) => !METRIC_NAME.test(name))
      if (bad !== undefined) {
        report.error(`--disabled-metrics must be fully qualified metric names matching "${METRIC_NAME.source}", got ${JSON.stringify(bad)}`, {
          option: '--disabled-metrics',
          value: bad,
        })
      }
    },
  },
  {
    id: 'METRIC-LABELS-MANIFEST',
    phase: 'validate',
    check(ctx, report) {
      const file = ctx.text('allow-metric-labels-manifest')
      if (!file) return
      const option = { option: '--allow-metric-labels-manifest', value: file }
      let text: string
      try {
        text = readFileSync(file, 'utf8')
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code
        const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message
        report.error(`failed to read allow list manifest: open ${file}: ${reason}`, option)
        return
      }
      let mapping: unknown
      try {
        mapping = loadYaml(text) ?? {}
      } catch (err) {
        report.error(`failed to parse allow list manifest: ${(err as Error).message}`, option)
        return
      }
      if (typeof mapping !== 'object' || Array.isArray(mapping) || Object.values(mapping as object).some((v) => typeof v === 'object' && v !== null)) {
        report.error('failed to parse allow list manifest: the manifest must map "metric,label" keys to strings', option)
        return
      }
      if (Object.keys(mapping as object).some((key) => !ALLOW_LIST_KEY.test(key))) {
        report.error(`invalid allow list mapping in manifest: ${ALLOW_LIST_FORMAT}`, option)
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
