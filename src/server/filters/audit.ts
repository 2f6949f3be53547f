/**
 * Audit: records each request and its response with the configured backends (log, webhook)
 * per the audit policy. Its place in the chain is here, after authentication so events name
 * the user; with no backend configured it passes requests through untouched. The backends
 * live in `src/server/audit/`.
 */
import type { AuditBackend } from '../audit/backend.js'
import type { Filter } from '../http/types.js'

export type { AuditBackend } from '../audit/backend.js'

export function withAudit(backends: readonly AuditBackend[]): Filter {
  // No backend: no link at all, so a request pays nothing for audit.
  if (backends.length === 0) return (next) => next
  return (next) => (req, res, ctx) => {
    for (const b of backends) b.requestReceived(ctx, req.method ?? 'GET')
    res.once('finish', () => {
      for (const b of backends) b.responseComplete(ctx, res.statusCode)
    })
    return next(req, res, ctx)
  }
}
