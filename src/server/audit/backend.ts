/**
 * What an audit backend implements (the reference's `k8s.io/apiserver/pkg/audit` Backend):
 * told of each request as it arrives and of its response once written. The log and webhook
 * backends (`--audit-log-*`, `--audit-webhook-*`) will each be one file of this folder; the
 * audit filter (`src/server/filters/audit.ts`) calls every configured backend.
 */
import type { RequestContext } from '../http/types.js'

export interface AuditBackend {
  requestReceived(ctx: RequestContext, method: string): void
  responseComplete(ctx: RequestContext, status: number): void
}
