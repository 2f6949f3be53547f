/**
 * Audit as the configuration asks for it: the policy (`--audit-policy-file`) and the backends
 * of the table below, one line per backend (the reference's log and webhook backends, each
 * one file of this room, built when its options are given). Without a policy or without a
 * backend there is nothing to record, and the audit filter is no link at all.
 */
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import type { AuditBackend } from './backend.js'
import type { PolicyRuleEvaluator } from './policy.js'
import { UnionBackend } from './union.js'
import { webhookAuditBackendFromConfig } from './webhook.js'

/** What a backend is built from. */
export interface AuditBackendDeps {
  readonly config: ServerConfig
  readonly log: Logger
}

export interface AuditBackendEntry {
  /** `log`, `webhook`: the reference's backend names (metrics and messages). */
  readonly name: string
  /** On when its options are given (`--audit-log-path`, `--audit-webhook-config-file`). */
  enabled(deps: AuditBackendDeps): boolean
  create(deps: AuditBackendDeps): AuditBackend
}

/** The audit backends, one line each. */
export const AUDIT_BACKENDS: readonly AuditBackendEntry[] = [
  { name: 'webhook', enabled: ({ config }) => Boolean(config.auditWebhook?.configFile), create: ({ config, log }) => webhookAuditBackendFromConfig(config.auditWebhook, log) },
]

export interface Audit {
  readonly backend?: AuditBackend
  readonly policy?: PolicyRuleEvaluator
}

/** The backends the configuration turns on, as one; undefined when none is. */
export function auditBackendFromConfig(deps: AuditBackendDeps, table: readonly AuditBackendEntry[] = AUDIT_BACKENDS): AuditBackend | undefined {
  const backends = table.filter((entry) => entry.enabled(deps)).map((entry) => entry.create(deps))
  if (backends.length === 0) return undefined
  return backends.length === 1 ? backends[0] : new UnionBackend(backends)
}

/**
 * The audit filter's backend and policy. The policy file is not read yet (`--audit-policy-file`
 * is named at start-up as not in effect): no policy, so no events, as the reference without one.
 */
export function auditFromConfig(deps: AuditBackendDeps): Audit {
  const backend = auditBackendFromConfig(deps)
  return backend ? { backend } : {}
}
