/**
 * How a backend takes events (`--audit-{log,webhook}-mode`, the reference's
 * AuditBatchOptions.wrapBackend, then AuditTruncateOptions.wrapBackend): `blocking` waits for
 * the backend and lets the request go on whatever it answered; `blocking-strict` waits too,
 * and a RequestReceived event the backend refuses fails the request; `batch` buffers
 * (buffered.ts). Truncation, when enabled, comes before all of them.
 */
import type { AuditBackendConfig } from '../config.js'
import type { MaybePromise } from '../http/maybe-promise.js'
import { then } from '../http/maybe-promise.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { AuditBackend } from './backend.js'
import { type BatchConfig, BufferedBackend } from './buffered.js'
import type { AuditEvent } from './event.js'
import type { PluginErrorHandler } from './plugin-error.js'
import { type TruncateConfig, TruncatingBackend } from './truncate.js'

export type AuditMode = 'blocking' | 'blocking-strict' | 'batch'

/** A backend's `--audit-<name>-*` options as the server uses them. */
export interface AuditBackendOptions {
  readonly mode: AuditMode
  readonly batch: BatchConfig
  /** Present when `--audit-<name>-truncate-enabled`. */
  readonly truncate?: TruncateConfig
}

/**
 * A backend's options checked as the reference's validateBackendBatchOptions and
 * AuditTruncateOptions.Validate check them (their messages; batch options only in batch
 * mode), then as the wrapping uses them. `asyncDelegate`: batches handed over without waiting
 * for the previous one (the webhook), or in turn (the log).
 */
export function backendOptions(plugin: string, config: AuditBackendConfig, asyncDelegate: boolean): AuditBackendOptions {
  const fail = (message: string): never => {
    throw new StartupError(message)
  }
  if (config.mode === 'batch') {
    if (config.batchBufferSize <= 0) fail(`invalid audit batch ${plugin} buffer size ${config.batchBufferSize}, must be a positive number`)
    if (config.batchMaxSize <= 0) fail(`invalid audit batch ${plugin} max batch size ${config.batchMaxSize}, must be a positive number`)
    if (config.batchThrottleEnable && config.batchThrottleQps <= 0) fail(`invalid audit batch ${plugin} throttle QPS ${config.batchThrottleQps}, must be a positive number`)
    if (config.batchThrottleEnable && config.batchThrottleBurst <= 0) fail(`invalid audit batch ${plugin} throttle burst ${config.batchThrottleBurst}, must be a positive number`)
  }
  // The reference checks the sizes whether or not truncation is on.
  if (config.truncateMaxEventSize <= 0) fail(`invalid audit truncate ${plugin} max event size ${config.truncateMaxEventSize}, must be a positive number`)
  if (config.truncateMaxBatchSize < config.truncateMaxEventSize) {
    fail(`invalid audit truncate ${plugin} max batch size ${config.truncateMaxBatchSize}, must be greater than max event size (${config.truncateMaxEventSize})`)
  }
  if (config.version !== 'audit.k8s.io/v1') fail(`invalid group version, allowed versions are ["audit.k8s.io/v1"]`)
  return {
    mode: config.mode,
    batch: {
      bufferSize: config.batchBufferSize,
      maxBatchSize: config.batchMaxSize,
      maxBatchWaitMs: config.batchMaxWaitMs,
      ...(config.batchThrottleEnable ? { throttle: { qps: config.batchThrottleQps, burst: config.batchThrottleBurst } } : {}),
      asyncDelegate,
    },
    ...(config.truncateEnabled ? { truncate: { maxEventSize: config.truncateMaxEventSize, maxBatchSize: config.truncateMaxBatchSize } } : {}),
  }
}

export function wrapBackend(backend: AuditBackend, options: AuditBackendOptions, onError: PluginErrorHandler): AuditBackend {
  const moded = withMode(backend, options, onError)
  return options.truncate ? new TruncatingBackend(moded, options.truncate, onError) : moded
}

function withMode(backend: AuditBackend, options: AuditBackendOptions, onError: PluginErrorHandler): AuditBackend {
  switch (options.mode) {
    case 'blocking-strict':
      return backend
    case 'blocking':
      return new IgnoreErrors(backend)
    case 'batch':
      return new BufferedBackend(backend, options.batch, onError)
  }
}

/** Blocking mode: the backend is waited for, but its refusal fails no request (the reference's ignoreErrorsBackend). */
class IgnoreErrors implements AuditBackend {
  readonly name: string

  constructor(private readonly backend: AuditBackend) {
    this.name = backend.name
  }

  processEvents(...events: AuditEvent[]): MaybePromise<boolean> {
    return then(this.backend.processEvents(...events), () => true)
  }

  run(): void {
    this.backend.run()
  }

  shutdown(): Promise<void> {
    return this.backend.shutdown()
  }
}
