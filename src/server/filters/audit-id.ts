/** Every response carries an Audit-Id: the client's, if it sent one, else a fresh UUID. */
import type { Filter } from '../http/types.js'

export function withAuditId(): Filter {
  return (next) => (req, res, ctx) => {
    res.setHeader('Audit-Id', ctx.auditId)
    return next(req, res, ctx)
  }
}
