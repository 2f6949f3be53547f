/**
 * The reference's plugin/pkg/audit/fake Backend: hands each batch it is given to a callback
 * (which may make the call wait by returning a promise) and answers true.
 */
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'

export class FakeBackend implements AuditBackend {
  readonly name = 'fake'
  readonly batches: AuditEvent[][] = []
  running = false
  stopped = false

  constructor(private readonly onRequest?: (events: AuditEvent[]) => void | Promise<void>) {}

  processEvents(...events: AuditEvent[]): boolean | Promise<boolean> {
    this.batches.push(events)
    const waited = this.onRequest?.(events)
    return waited ? waited.then(() => true) : true
  }

  run(): void {
    this.running = true
  }

  async shutdown(): Promise<void> {
    this.stopped = true
  }
}

/** `number` empty events (the reference's newEvents), each with its own audit ID. */
export function newEvents(number: number): AuditEvent[] {
  return Array.from({ length: number }, (_, i) => ({ auditID: `e${i}` }) as AuditEvent)
}
