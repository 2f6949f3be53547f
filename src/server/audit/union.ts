/**
 * Several backends as one (the reference's audit.Union): every event goes to each, in order;
 * one that fails does not keep the others from their events.
 */
import type { AuditBackend } from './backend.js'
import type { AuditEvent } from './event.js'

export class UnionBackend implements AuditBackend {
  readonly name: string

  constructor(private readonly backends: readonly AuditBackend[]) {
    this.name = `union[${backends.map((b) => b.name).join(',')}]`
  }

  processEvents(...events: AuditEvent[]): boolean {
    let ok = true
    for (const backend of this.backends) ok = backend.processEvents(...events) && ok
    return ok
  }

  run(): void {
    for (const backend of this.backends) backend.run()
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.backends.map((backend) => backend.shutdown()))
  }
}
