/** Audit backends: the log backend is checked only with --audit-log-path, the webhook only with its file. */
import { AUDIT_LOG_FORMATS, AUDIT_MODES } from '../../options/enums.js'
import type { ValidationContext } from '../context.js'
import type { Reporter, Rule } from '../rule.js'

type Backend = 'log' | 'webhook'

const BATCH_OPTIONS = ['batch-buffer-size', 'batch-max-size', 'batch-max-wait', 'batch-throttle-burst', 'batch-throttle-enable', 'batch-throttle-qps']

function enabled(ctx: ValidationContext, backend: Backend): boolean {
  return Boolean(backend === 'log' ? ctx.text('audit-log-path') : ctx.text('audit-webhook-config-file'))
}

function checkBackend(ctx: ValidationContext, report: Reporter, backend: Backend): void {
  const name = (suffix: string) => `audit-${backend}-${suffix}`
  const num = (suffix: string) => ctx.value<number>(name(suffix))
  const mode = ctx.text(name('mode')) ?? (ctx.value<string>(name('mode')) as string)
  if (!(AUDIT_MODES as readonly string[]).includes(mode)) {
    report.error(`invalid audit ${backend} mode ${mode}, allowed modes are ${JSON.stringify(AUDIT_MODES.join(','))}`, {
      option: `--${name('mode')}`,
      value: mode,
    })
  }
  if (mode === 'batch') {
    const positive = (suffix: string, what: string) => {
      const v = num(suffix)
      if (v !== undefined && v <= 0) {
        report.error(`invalid audit batch ${backend} ${what} ${v}, must be a positive number`, { option: `--${name(suffix)}`, value: String(v) })
      }
    }
    positive('batch-buffer-size', 'buffer size')
    positive('batch-max-size', 'max batch size')
    if (ctx.value<boolean>(name('batch-throttle-enable'))) {
      positive('batch-throttle-qps', 'throttle QPS')
      positive('batch-throttle-burst', 'throttle burst')
    }
  } else {
    for (const suffix of BATCH_OPTIONS) {
      if (ctx.has(name(suffix))) {
        report.warning(`--${name(suffix)} applies only in batch mode; --${name('mode')} is ${mode}`, {
          option: `--${name(suffix)}`,
          remedy: `give --${name('mode')}=batch or drop --${name(suffix)}`,
        })
      }
    }
  }
  const maxEvent = num('truncate-max-event-size') ?? 102400
  const maxBatch = num('truncate-max-batch-size') ?? 10485760
  if (maxEvent <= 0) {
    report.error(`invalid audit truncate ${backend} max event size ${maxEvent}, must be a positive number`, { option: `--${name('truncate-max-event-size')}` })
  }
  if (maxBatch < maxEvent) {
    report.error(`invalid audit truncate ${backend} max batch size ${maxBatch}, must be greater than max event size (${maxEvent})`, {
      option: `--${name('truncate-max-batch-size')}`,
    })
  }
  const version = ctx.text(name('version'))
  if (version !== undefined) {
    if (version.split('/').length > 2) report.error(`unexpected GroupVersion string: ${version}`, { option: `--${name('version')}`, value: version })
    else if (version !== 'audit.k8s.io/v1') {
      report.error('invalid group version, allowed versions are ["audit.k8s.io/v1"]', { option: `--${name('version')}`, value: version })
    }
  }
  if (backend === 'log') {
    const format = ctx.text('audit-log-format')
    if (format !== undefined && !(AUDIT_LOG_FORMATS as readonly string[]).includes(format)) {
      report.error(`invalid audit log format ${format}, allowed formats are ${JSON.stringify(AUDIT_LOG_FORMATS.join(','))}`, {
        option: '--audit-log-format',
        value: format,
      })
    }
    for (const suffix of ['maxage', 'maxbackup', 'maxsize']) {
      const v = num(suffix)
      if (v !== undefined && v < 0) report.error(`--audit-log-${suffix} ${v} can't be a negative number`, { option: `--audit-log-${suffix}`, value: String(v) })
    }
  }
}

export const auditRules: Rule[] = [
  {
    id: 'AUD-1',
    phase: 'validate',
    check(ctx, report) {
      for (const backend of ['log', 'webhook'] as const) if (enabled(ctx, backend)) checkBackend(ctx, report, backend)
    },
  },
]
