/**
 * Truncation (the reference's plugin/pkg/audit/truncate, `--audit-{log,webhook}-truncate-*`):
 * an event whose JSON is over `maxEventSize` bytes first loses its request and response
 * bodies (level Request and up) and is marked `audit.k8s.io/truncated: "true"`; still too
 * large, it is dropped and reported (apiserver_audit_error_total{plugin="truncate"}). The
 * events that remain are handed on in batches of at most `maxBatchSize` bytes.
 */
import type { MaybePromise } from '../http/maybe-promise.js'
import { type AuditBackend, allProcessed } from './backend.js'
import { type AuditEvent, levelAtLeast } from './event.js'
import { type PluginErrorHandler, ignorePluginErrors } from './plugin-error.js'

/** The name the reference reports this plugin's errors under. */
export const TRUNCATE_PLUGIN = 'truncate'

export const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated'

/** The reference's truncate.Config, in bytes. */
export interface TruncateConfig {
  readonly maxEventSize: number
  readonly maxBatchSize: number
}

export class TruncatingBackend implements AuditBackend {
  readonly name: string

  constructor(
    private readonly delegate: AuditBackend,
    private readonly config: TruncateConfig,
    private readonly onError: PluginErrorHandler = ignorePluginErrors,
  ) {
    this.name = delegate.name
  }

  processEvents(...events: AuditEvent[]): MaybePromise<boolean> {
    const answers: MaybePromise<boolean>[] = []
    const dropped: AuditEvent[] = []
    let batch: AuditEvent[] = []
    let batchSize = 0
    for (const given of events) {
      let event = given
      let size = encodedSize(event)
      // Only bodies can go: an event at Metadata has nothing to leave out.
      if (size > this.config.maxEventSize && levelAtLeast(event.level, 'Request')) {
        event = truncated(event)
        size = encodedSize(event)
      }
      if (size > this.config.maxEventSize) {
        dropped.push(event)
        continue
      }
      if (batch.length > 0 && batchSize + size > this.config.maxBatchSize) {
        answers.push(this.delegate.processEvents(...batch))
        batch = []
        batchSize = 0
      }
      batch.push(event)
      batchSize += size
    }
    if (batch.length > 0) answers.push(this.delegate.processEvents(...batch))
    if (dropped.length > 0) this.onError(TRUNCATE_PLUGIN, 'event is too large even after truncating', dropped)
    return allProcessed(answers)
  }

  run(): void {
    this.delegate.run()
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown()
  }
}

/** The event's size as the reference measures it: its JSON encoding, with the encoder's newline. */
export function encodedSize(event: AuditEvent): number {
  return Buffer.byteLength(JSON.stringify(event)) + 1
}

/** A copy without the bodies, marked truncated; the caller's event stays as it was. */
function truncated(event: AuditEvent): AuditEvent {
  const { requestObject: _request, responseObject: _response, ...rest } = event
  return { ...rest, annotations: { ...event.annotations, [TRUNCATED_ANNOTATION]: 'true' } }
}
