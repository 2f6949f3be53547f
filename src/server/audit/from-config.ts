/**
 * Audit as the configuration asks for it: the policy (`--audit-policy-file`) and the backends
 * of the table below, one line per backend (the reference's log and webhook backends, each
 * one file of this room, built when its options are given). Without a policy or without a
 * backend there is nothing to record, and the audit filter is no link at all.
 */
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import type { AuditBackend } from './backend.js'
import { ensureLogFile, logBackendFromConfig, validLogOptions } from './log.js'
import { backendOptions } from './mode.js'
import { type AuditMetrics, NO_AUDIT_METRICS } from './metrics.js'
import type { PolicyRuleEvaluator } from './policy.js'
import { PolicyChecker } from './policy-checker.js'
import { PolicyFileError, loadPolicyFromFile } from './policy-file.js'
import { UnionBackend } from './union.js'
import { WEBHOOK_PLUGIN, webhookAuditBackendFromConfig } from './webhook.js'

/** What a backend is built from. */
export interface AuditBackendDeps {
  readonly config: ServerConfig
  readonly log: Logger
  /** The audit metrics on the server's registry; backends report what they lose to `pluginError`. */
  readonly metrics?: AuditMetrics
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
  { name: 'log', enabled: ({ config }) => Boolean(config.auditLog?.path), create: ({ config, metrics }) => logBackendFromConfig(config.auditLog, (metrics ?? NO_AUDIT_METRICS).pluginError) },
  { name: 'webhook', enabled: ({ config }) => Boolean(config.auditWebhook?.configFile), create: ({ config, metrics }) => webhookAuditBackendFromConfig(config.auditWebhook, (metrics ?? NO_AUDIT_METRICS).pluginError) },
]

export interface Audit {
  readonly backend?: AuditBackend
  readonly policy?: PolicyRuleEvaluator
  readonly metrics?: AuditMetrics
}

/** The backends the configuration turns on, as one; undefined when none is. */
export function auditBackendFromConfig(deps: AuditBackendDeps, table: readonly AuditBackendEntry[] = AUDIT_BACKENDS): AuditBackend | undefined {
  const backends = table.filter((entry) => entry.enabled(deps)).map((entry) => entry.create(deps))
  if (backends.length === 0) return undefined
  return backends.length === 1 ? backends[0] : new UnionBackend(backends)
}

/**
 * The audit filter's backend and policy. Without `--audit-policy-file` no backend is built
 * and nothing is recorded, as the reference; a policy file that cannot be loaded stops
 * start-up (`loading audit policy file: <why>: from file <path>`). The log file of
 * `--audit-log-path` is created all the same (the reference's getWriter runs before it looks
 * at the policy): it exists, empty, for the log shippers that watch it; and the backends'
 * options are checked all the same (the reference's Validate of every flag).
 */
export function auditFromConfig(deps: AuditBackendDeps): Audit {
  const policy = auditPolicyFromConfig(deps)
  if (!policy) {
    const { auditLog, auditWebhook } = deps.config
    if (auditLog?.path) validLogOptions(auditLog)
    if (auditWebhook?.configFile) backendOptions(WEBHOOK_PLUGIN, auditWebhook, true)
    if (auditLog?.path && auditLog.path !== '-') ensureLogFile(auditLog.path)
    return {}
  }
  const backend = auditBackendFromConfig(deps)
  return backend ? { backend, policy, ...(deps.metrics ? { metrics: deps.metrics } : {}) } : {}
}

function auditPolicyFromConfig({ config, log }: AuditBackendDeps): PolicyRuleEvaluator | undefined {
  if (!config.auditPolicyFile) return undefined
  try {
    return new PolicyChecker(loadPolicyFromFile(config.auditPolicyFile, (message) => log.warning(message)))
  } catch (err) {
    if (err instanceof PolicyFileError) throw new StartupError(`loading audit policy file: ${err.message}`)
    throw err
  }
}
