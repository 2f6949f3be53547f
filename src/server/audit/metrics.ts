/**
 * The audit metrics of the reference (pkg/audit/metrics.go) on the server's registry:
 * `apiserver_audit_event_total` (events handed to the backend), `apiserver_audit_level_total`
 * (each request's policy level), `apiserver_audit_error_total{plugin}` (events a plugin could
 * not record, also written to the server's log with each event's line) and
 * `apiserver_audit_requests_rejected_total` (requests failed because their event could not be
 * stored, blocking-strict).
 */
import { Counter, type Registry } from 'prom-client'
import type { Logger } from '../log/logger.js'
import type { Level } from './event.js'
import { eventString } from './event-string.js'
import type { PluginErrorHandler } from './plugin-error.js'

export interface AuditMetrics {
  /** An event handed to the backend (ObserveEvent). */
  event(): void
  /** A request's level (ObservePolicyLevel). */
  policyLevel(level: Level): void
  /** A request failed because its event could not be stored. */
  requestRejected(): void
  /** HandlePluginError: counts the events and logs them. */
  readonly pluginError: PluginErrorHandler
}

export function auditMetrics(registry: Registry, log: Logger): AuditMetrics {
  // The two counters every audited request moves are counted in plain numbers and added to
  // the metric when it is read (collect): a labelled inc hashes its labels each time, which
  // was a visible part of audit's cost per request (issue 33's bench).
  let pendingEvents = 0
  const pendingLevels = new Map<Level, number>()
  const counter = (name: string, help: string, labelNames: string[] = [], collect?: (this: Counter) => void) =>
    new Counter({ name: `apiserver_audit_${name}`, help: `[ALPHA] ${help}`, labelNames, registers: [registry], ...(collect ? { collect } : {}) })
  counter('event_total', 'Counter of audit events generated and sent to the audit backend.', [], function () {
    if (pendingEvents > 0) this.inc(pendingEvents)
    pendingEvents = 0
  })
  const errors = counter('error_total', 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.', ['plugin'])
  counter('level_total', 'Counter of policy levels for audit events (1 per request).', ['level'], function () {
    for (const [level, n] of pendingLevels) this.inc({ level }, n)
    pendingLevels.clear()
  })
  const rejected = counter('requests_rejected_total', 'Counter of apiserver requests rejected due to an error in audit logging backend.')
  return {
    event: () => void pendingEvents++,
    policyLevel: (level) => void pendingLevels.set(level, (pendingLevels.get(level) ?? 0) + 1),
    requestRejected: () => rejected.inc(),
    pluginError: (plugin, error, impacted) => {
      errors.inc({ plugin }, impacted.length)
      log.error(`Error in audit plugin '${plugin}' affecting ${impacted.length} audit events: ${error}\nImpacted events:\n${impacted.map((ev) => `${eventString(ev)}\n`).join('')}`)
    },
  }
}

/** Metrics nobody reads (unit tests of the filter). */
export const NO_AUDIT_METRICS: AuditMetrics = { event: () => {}, policyLevel: () => {}, requestRejected: () => {}, pluginError: () => {} }
