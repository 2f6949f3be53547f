import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { type AuditBackendDeps, type AuditBackendEntry, auditBackendFromConfig, auditFromConfig } from '../../../src/server/audit/from-config.js'
import { StartupError } from '../../../src/server/lifecycle/startup-error.js'
import type { AuditBackendConfig, AuditLogConfig, ServerConfig } from '../../../src/server/config.js'
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

describe('audit from the configuration', () => {
  const logger = { warning: () => {} } as unknown as Logger
  /** The options' defaults (the reference's NewAuditOptions), for the log and the webhook. */
  const backend: AuditBackendConfig = {
    mode: 'blocking',
    version: 'audit.k8s.io/v1',
    batchBufferSize: 10000,
    batchMaxSize: 1,
    batchMaxWaitMs: 0,
    batchThrottleEnable: false,
    batchThrottleQps: 0,
    batchThrottleBurst: 0,
    truncateEnabled: false,
    truncateMaxBatchSize: 10485760,
    truncateMaxEventSize: 102400,
  }
  const auditLog = (over: Partial<AuditLogConfig>): AuditLogConfig => ({ ...backend, format: 'json', maxAgeDays: 0, maxBackups: 0, maxSizeMb: 0, compress: false, ...over })

  it('without --audit-policy-file: no policy and no backend, so no events', () => {
    assert.deepEqual(auditFromConfig({ config: {} as ServerConfig, log: logger }), {})
  })

  it('without --audit-policy-file, --audit-log-path still creates the file (0600) and its directory (0700), as the reference\'s ensureLogFile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'))
    try {
      const path = join(dir, 'logs', 'audit.log')
      assert.deepEqual(auditFromConfig({ config: { auditLog: auditLog({ path }) } as ServerConfig, log: logger }), {})
      assert.equal(statSync(path).size, 0)
      assert.equal(statSync(path).mode & 0o777, 0o600)
      assert.equal(statSync(join(dir, 'logs')).mode & 0o777, 0o700)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("without --audit-policy-file, the backends' options are checked all the same (the reference's Validate); the webhook file is not read", () => {
    const config = (over: Partial<ServerConfig>) => ({ config: over as ServerConfig, log: logger })
    assert.throws(() => auditFromConfig(config({ auditLog: auditLog({ path: '-', maxAgeDays: -1 }) })), { message: "--audit-log-maxage -1 can't be a negative number" })
    const webhook = { ...backend, mode: 'batch' as const, configFile: '/nonexistent/webhook.yaml', initialBackoffMs: 10_000 }
    assert.deepEqual(auditFromConfig(config({ auditWebhook: webhook })), {})
    assert.throws(() => auditFromConfig(config({ auditWebhook: { ...webhook, batchBufferSize: 0 } })), { message: 'invalid audit batch webhook buffer size 0, must be a positive number' })
  })

  it('a policy file that cannot be loaded stops start-up, the file named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'))
    try {
      const path = join(dir, 'policy.yaml')
      writeFileSync(path, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n')
      assert.throws(() => auditFromConfig({ config: { auditPolicyFile: path } as ServerConfig, log: logger }), (err: Error) => {
        assert.ok(err instanceof StartupError)
        assert.equal(err.message, `loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${path}`)
        return true
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
