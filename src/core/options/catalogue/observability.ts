/**
 * Server options: logging, metrics, features, versions (spec 4.8), plus `-v, --v` (listed
 * with the general options in spec 4.4).
 */
import { LOGGING_FORMATS } from '../enums.js'
import type { OptionSpec } from '../types.js'

export const OBSERVABILITY_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'v',
    short: 'v',
    type: 'int',
    help: 'Number for the log level verbosity.',
    section: 'observability',
    valueName: 'Level',
  },
  {
    name: 'log-flush-frequency',
    type: 'duration',
    default: '5s',
    help: 'Maximum number of seconds between log flushes.',
    section: 'observability',
  },
  {
    name: 'logging-format',
    type: 'string',
    default: 'text',
    help: 'Sets the log format; only text is permitted.',
    section: 'observability',
    constraints: { oneOf: LOGGING_FORMATS },
  },
  {
    name: 'log-text-info-buffer-size',
    type: 'quantity',
    help: '[Alpha] In text format with split output streams, buffer info messages up to this size (default 0, no buffering); needs the logging alpha feature gate.',
    section: 'observability',
  },
  {
    name: 'log-text-split-stream',
    type: 'bool',
    help: '[Alpha] In text format, write error messages to stderr and info messages to stdout; needs the logging alpha feature gate.',
    section: 'observability',
  },
  {
    name: 'vmodule',
    type: 'moduleLevels',
    help: 'Comma-separated list of pattern=N settings for file-filtered logging (text log format only).',
    section: 'observability',
    repeatable: true,
    valueName: 'pattern=N,...',
  },
  {
    name: 'allow-metric-labels',
    type: 'stringToString',
    default: '[]',
    help: 'Map from metric-label to the list of allowed values of that label; the key has the form <MetricName>,<LabelName> and the value is a comma-separated list of allowed values.',
    section: 'observability',
    repeatable: true,
  },
  {
    name: 'allow-metric-labels-manifest',
    type: 'string',
    help: 'Path to a manifest file with the allow-list mapping, in the same format as --allow-metric-labels; --allow-metric-labels overrides it.',
    section: 'observability',
  },
  {
    name: 'disabled-metrics',
    type: 'strings',
    help: 'Fully qualified names of metrics to disable; this takes precedence over showing hidden metrics.',
    section: 'observability',
    repeatable: true,
  },
  {
    name: 'show-hidden-metrics-for-version',
    type: 'string',
    help: 'Previous minor version (<major>.<minor> only) for which to show hidden metrics.',
    section: 'observability',
  },
  {
    name: 'feature-gates',
    type: 'featureGates',
    help: 'Comma-separated list of component:key=value pairs that enable or disable feature gates; repeatable; the component defaults to core.',
    section: 'observability',
    repeatable: true,
    valueName: 'colonSeparatedMultimapStringString',
  },
  {
    name: 'emulated-version',
    type: 'versions',
    default: 'core=1.35',
    help: 'Versions the components emulate, as component=major.minor; the allowed range for core is 1.32 to 1.35.',
    section: 'observability',
    repeatable: true,
    valueName: 'strings',
  },
  {
    name: 'min-compatibility-version',
    type: 'versions',
    default: 'core=1.34',
    help: 'Minimum version the components must stay compatible with, as component=major.minor; not above the emulated version; allowed range 1.32 to 1.35.',
    section: 'observability',
    repeatable: true,
    valueName: 'strings',
  },
  {
    name: 'emulation-forward-compatible',
    type: 'bool',
    help: 'If true, automatically enable the higher-stability versions of beta-or-better APIs that are enabled by default or by --runtime-config; only allowed when the emulation version is below the binary version.',
    section: 'observability',
  },
  {
    name: 'runtime-config',
    type: 'keyValues',
    help: 'Set of key=value pairs that enable or disable built-in APIs (v1, <group>/<version>, api/all, api/ga, api/beta, api/alpha).',
    section: 'observability',
    repeatable: true,
    valueName: 'mapStringString',
  },
  {
    name: 'runtime-config-emulation-forward-compatible',
    type: 'bool',
    help: 'If true, APIs named in --runtime-config are installed even if introduced after the emulation version; if false the server fails to start in that case; only allowed when the emulation version is below the binary version.',
    section: 'observability',
  },
]
