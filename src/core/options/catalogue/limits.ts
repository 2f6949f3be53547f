/**
 * Server options: limits (spec 8) that are not already in another file. `--goaway-chance` and
 * `--http2-max-streams-per-connection` are in serving.ts, `--storage-initialization-timeout`
 * and the store check timeouts in storage.ts, the audit truncation sizes in audit.ts, the
 * webhook cache TTLs in authentication.ts / authorization.ts, `--nodeagent-timeout` and the
 * default toleration seconds in serving.ts.
 */
import type { OptionSpec } from '../types.js'

export const LIMITS_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'max-requests-inflight',
    type: 'int',
    default: '400',
    help: 'Maximum number of non-mutating requests in flight; with priority and fairness on it is summed with the mutating limit into one positive total, otherwise 0 means no limit.',
    section: 'limits',
  },
  {
    name: 'max-mutating-requests-inflight',
    type: 'int',
    default: '200',
    help: 'Maximum number of mutating requests in flight; with priority and fairness on it is summed with the non-mutating limit into one positive total, otherwise 0 means no limit.',
    section: 'limits',
  },
  {
    name: 'enable-priority-and-fairness',
    type: 'bool',
    default: 'true',
    help: 'If true, replace the max-in-flight handler with one that queues and dispatches with priority and fairness.',
    section: 'limits',
  },
  {
    name: 'request-timeout',
    type: 'duration',
    default: '1m0s',
    help: 'Default request handling timeout; may be overridden for specific request types.',
    section: 'limits',
  },
  {
    name: 'min-request-timeout',
    type: 'int',
    default: '1800',
    help: 'Minimum number of seconds a handler must keep a request open before timing it out; watch requests only, which get a randomized connection timeout above this value.',
    section: 'limits',
  },
  {
    name: 'max-connection-bytes-per-sec',
    type: 'int',
    help: 'If non-zero, throttle each user connection to this many bytes per second; applies to long-running requests only.',
    section: 'limits',
  },
  {
    name: 'lease-reuse-duration-seconds',
    type: 'int',
    default: '60',
    help: 'Time in seconds that each lease is reused; a too-small value can harm storage performance.',
    section: 'limits',
  },
]
