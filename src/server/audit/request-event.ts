/**
 * The audit event of a request as it arrives (the reference's audit.NewEventFromRequest and
 * LogRequestMetadata): who asks, from where, what for; the stages are stamped on it as the
 * request goes.
 */
import type { Request, RequestContext } from '../http/types.js'
import { type AuditEvent, type Level, type ObjectReference, microTime } from './event.js'

export function newRequestEvent(req: Request, ctx: RequestContext, level: Level): AuditEvent {
  const user = ctx.user
  const userAgent = req.headers['user-agent']
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: ctx.auditId,
    stage: 'RequestReceived',
    requestURI: req.url ?? '',
    verb: ctx.info.verb,
    user: user ? { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: [...user.groups], ...(user.extra ? { extra: user.extra } : {}) } : {},
    sourceIPs: sourceIPs(req),
    ...(typeof userAgent === 'string' ? { userAgent } : {}),
    ...(ctx.info.isResourceRequest ? { objectRef: objectRef(ctx) } : {}),
    requestReceivedTimestamp: microTime(ctx.receivedAt),
    stageTimestamp: microTime(ctx.receivedAt),
  }
}

function objectRef(ctx: RequestContext): ObjectReference {
  const info = ctx.info
  return {
    ...(info.resource ? { resource: info.resource } : {}),
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.apiGroup ? { apiGroup: info.apiGroup } : {}),
    ...(info.apiVersion ? { apiVersion: info.apiVersion } : {}),
    ...(info.subresource ? { subresource: info.subresource } : {}),
  }
}

/**
 * The client's addresses as the reference's utilnet.SourceIPs gives them: X-Forwarded-For's
 * entries, else X-Real-Ip, then the connection's peer when not already named.
 */
function sourceIPs(req: Request): string[] {
  const ips: string[] = []
  const forwarded = req.headers['x-forwarded-for']
  const forwardedText = Array.isArray(forwarded) ? forwarded.join(',') : forwarded
  if (forwardedText) ips.push(...forwardedText.split(',').map((ip) => ip.trim()).filter((ip) => ip !== ''))
  const realIp = req.headers['x-real-ip']
  if (ips.length === 0 && typeof realIp === 'string' && realIp.trim() !== '') ips.push(realIp.trim())
  const peer = req.socket?.remoteAddress
  if (peer && !ips.includes(peer)) ips.push(peer)
  return ips
}
