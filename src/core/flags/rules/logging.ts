/** Logging options, which the reference applies right after the versions (phase P3). */
import { LOGGING_FORMATS } from '../../options/enums.js'
import type { Rule } from '../rule.js'

export const loggingRules: Rule[] = [
  {
    id: 'MISC-7',
    phase: 'logging',
    check(ctx, report) {
      const format = ctx.text('logging-format')
      if (format !== undefined && !(LOGGING_FORMATS as readonly string[]).includes(format)) {
        report.error(`format: Invalid value: ${JSON.stringify(format)}: Unsupported log format`, {
          option: '--logging-format',
          value: format,
          remedy: `only ${LOGGING_FORMATS.join(', ')} is permitted`,
        })
      }
    },
  },
  {
    id: 'LOG-ALPHA',
    phase: 'logging',
    check(ctx, report) {
      if (ctx.gate('LoggingAlphaOptions')) return
      const remedy = 'add LoggingAlphaOptions=true to --feature-gates'
      if (ctx.value<boolean>('log-text-split-stream')) {
        report.error('options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled', { option: '--log-text-split-stream', remedy })
      }
      const buffer = ctx.text('log-text-info-buffer-size')
      if (buffer !== undefined && !/^[+-]?0*(\.0*)?[a-zA-Z]*$/.test(buffer)) {
        report.error('options.text.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled', {
          option: '--log-text-info-buffer-size',
          value: buffer,
          remedy,
        })
      }
    },
  },
]
