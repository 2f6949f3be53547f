/**
 * Several backends as one (the reference's audit.Union): every event goes to each, in order;
 * one that fails does not keep the others from their events.
 */
import type { MaybePromise } from '../http/maybe-promise.js'
import { type AuditBackend, allProcessed } from './backend.js'
import type { AuditEvent } from './event.js'

export class UnionBackend implements AuditBackend {
  readonly name: string

  constructor(private readonly backends: readonly AuditBackend[]) {
    this.name = `union[${backends.map((b) => b.name).join(',')}]`
  }

  processEvents(...events: AuditEvent[]): MaybePromise<boolean> {
    return allProcessed(this.backends.map((backend) => backend.processEvents(...events)))
  }

  run(): void {
    for (const backend of this.backends) backend.run()
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.backends.map((backend) => backend.shutdown()))
  }
}
