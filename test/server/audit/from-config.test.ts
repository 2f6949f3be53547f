import assert from 'node:assert/strict'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { type AuditBackendDeps, type AuditBackendEntry, auditBackendFromConfig } from '../../../src/server/audit/from-config.js'
import type { ServerConfig } from '../../../src/server/config.js'
import type { Logger } from '../../../src/server/log/logger.js'

/** A backend that keeps the audit IDs it was given, or refuses them all. */
class Recording implements AuditBackend {
  readonly seen: string[] = []
  running = false
  constructor(
    readonly name: string,
    private readonly accept = true,
  ) {}
  processEvents(...events: AuditEvent[]): boolean {
    this.seen.push(...events.map((e) => e.auditID))
    return this.accept
  }
  run(): void {
    this.running = true
  }
  async shutdown(): Promise<void> {
    this.running = false
  }
}

const deps: AuditBackendDeps = { config: {} as ServerConfig, log: {} as Logger }
const event = (auditID: string) => ({ auditID }) as AuditEvent

describe('audit backends from the table', () => {
  it('builds only the enabled backends; none enabled: no backend at all', () => {
    const off: AuditBackendEntry = { name: 'off', enabled: () => false, create: () => new Recording('off') }
    assert.equal(auditBackendFromConfig(deps, [off]), undefined)
    const one = new Recording('log')
    assert.equal(auditBackendFromConfig(deps, [off, { name: 'log', enabled: () => true, create: () => one }]), one)
  })

  it('hands every event to each enabled backend, in order, and reports a refusal by any', async () => {
    const log = new Recording('log')
    const webhook = new Recording('webhook', false)
    const union = auditBackendFromConfig(deps, [
      { name: 'log', enabled: () => true, create: () => log },
      { name: 'webhook', enabled: () => true, create: () => webhook },
    ])!
    assert.equal(union.name, 'union[log,webhook]')
    union.run()
    assert.ok(log.running && webhook.running)
    assert.equal(union.processEvents(event('a'), event('b')), false)
    assert.deepEqual(log.seen, ['a', 'b'])
    assert.deepEqual(webhook.seen, ['a', 'b'])
    await union.shutdown()
    assert.ok(!log.running && !webhook.running)
  })
})
