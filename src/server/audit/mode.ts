/**
 * How a backend takes events (`--audit-{log,webhook}-mode`, the reference's
 * AuditBatchOptions.wrapBackend, then AuditTruncateOptions.wrapBackend): `blocking` waits for
 * the backend and lets the request go on whatever it answered; `blocking-strict` waits too,
 * and a RequestReceived event the backend refuses fails the request; `batch` buffers
 * (buffered.ts). Truncation, when enabled, comes before all of them.
 */
import type { MaybePromise } from '../http/maybe-promise.js'
import { then } from '../http/maybe-promise.js'
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
