/**
 * The audit event of a request (the reference's audit.LogRequestMetadata, LogImpersonatedUser,
 * LogRequestObject, LogRequestPatch and LogResponseObject): who asks, from where, what for as
 * it arrives; then what it sent, who it acted as and what it got, as the filter learns them.
 */
import type { Request, RequestContext, UserInfo } from '../http/types.js'
import { type AuditEvent, type AuditUserInfo, type Level, type ObjectReference, type ResponseStatus, levelAtLeast, microTime } from './event.js'

/** The reference's maxUserAgentLength and its suffix. */
const MAX_USER_AGENT_LENGTH = 1024
const USER_AGENT_TRUNCATE_SUFFIX = '...TRUNCATED'

export function newRequestEvent(req: Request, ctx: RequestContext, level: Level): AuditEvent {
  const userAgent = req.headers['user-agent']
  const received = microTime(ctx.receivedAt)
  // Built field by field in the v1 struct's order (JSON.stringify of the webhook keeps it),
  // without spreading temporary objects for the optional ones.
  const event: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: ctx.auditId,
    stage: 'RequestReceived',
    requestURI: req.url ?? '',
    verb: ctx.info.verb,
    user: ctx.user ? auditUser(ctx.user) : {},
    sourceIPs: sourceIPs(req),
  } as AuditEvent
  if (typeof userAgent === 'string' && userAgent !== '') event.userAgent = truncatedUserAgent(userAgent)
  if (ctx.info.isResourceRequest) event.objectRef = objectRef(ctx)
  event.requestReceivedTimestamp = received
  event.stageTimestamp = received
  return event
}

/** authentication.k8s.io/v1 UserInfo as encoded: empty fields left out, extra's keys in order. */
export function auditUser(user: UserInfo): AuditUserInfo {
  const info: AuditUserInfo = { username: user.name }
  if (user.uid) info.uid = user.uid
  if (user.groups.length > 0) info.groups = [...user.groups]
  if (user.extra) {
    const keys = Object.keys(user.extra)
    if (keys.length > 0) info.extra = keys.length === 1 ? { [keys[0]!]: user.extra[keys[0]!]! } : Object.fromEntries(keys.sort().map((k) => [k, user.extra![k]!]))
  }
  return info
}

function truncatedUserAgent(userAgent: string): string {
  return userAgent.length > MAX_USER_AGENT_LENGTH ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) + USER_AGENT_TRUNCATE_SUFFIX : userAgent
}

function objectRef(ctx: RequestContext): ObjectReference {
  const info = ctx.info
  const ref: ObjectReference = {}
  if (info.resource) ref.resource = info.resource
  if (info.namespace) ref.namespace = info.namespace
  if (info.name) ref.name = info.name
  if (info.apiGroup) ref.apiGroup = info.apiGroup
  if (info.apiVersion) ref.apiVersion = info.apiVersion
  if (info.subresource) ref.subresource = info.subresource
  return ref
}

/**
 * The request's body once read (LogRequestObject; a patch: LogRequestPatch). The object's
 * namespace, name, uid and resourceVersion complete the objectRef where the path did not
 * give them; the body itself is recorded from level Request.
 */
export function logRequestObject(event: AuditEvent, body: unknown, isPatch: boolean, omitManagedFields: boolean): void {
  if (!isPatch && event.objectRef && isObject(body) && isObject(body.metadata)) {
    const meta = body.metadata
    const ref = event.objectRef
    // The order of the encoded ObjectReference: resource, namespace, name, uid, apiGroup, apiVersion, resourceVersion, subresource.
    event.objectRef = {
      ...(ref.resource ? { resource: ref.resource } : {}),
      ...(ref.namespace || text(meta.namespace) ? { namespace: ref.namespace || text(meta.namespace) } : {}),
      ...(ref.name || text(meta.name) ? { name: ref.name || text(meta.name) } : {}),
      ...(ref.uid || text(meta.uid) ? { uid: ref.uid || text(meta.uid) } : {}),
      ...(ref.apiGroup ? { apiGroup: ref.apiGroup } : {}),
      ...(ref.apiVersion ? { apiVersion: ref.apiVersion } : {}),
      ...(ref.resourceVersion || text(meta.resourceVersion) ? { resourceVersion: ref.resourceVersion || text(meta.resourceVersion) } : {}),
      ...(ref.subresource ? { subresource: ref.subresource } : {}),
    }
  }
  if (levelAtLeast(event.level, 'Request')) event.requestObject = omitManagedFields && !isPatch ? withoutManagedFields(body) : body
}

/**
 * The response (LogResponseObject): a Status body is the event's responseStatus (its bounded
 * fields), any body is recorded at level RequestResponse.
 */
export function logResponseObject(event: AuditEvent, body: unknown, omitManagedFields: boolean): void {
  if (isObject(body) && body.kind === 'Status' && (body.apiVersion === 'v1' || body.apiVersion === undefined)) event.responseStatus = statusOf(body)
  if (levelAtLeast(event.level, 'RequestResponse')) event.responseObject = omitManagedFields ? withoutManagedFields(body) : body
}

function statusOf(status: Record<string, unknown>): ResponseStatus {
  return {
    metadata: {},
    ...(typeof status.status === 'string' && status.status !== '' ? { status: status.status } : {}),
    ...(typeof status.message === 'string' && status.message !== '' ? { message: status.message } : {}),
    ...(typeof status.reason === 'string' && status.reason !== '' ? { reason: status.reason } : {}),
    ...(status.details !== undefined && status.details !== null ? { details: status.details } : {}),
    ...(typeof status.code === 'number' && status.code !== 0 ? { code: status.code } : {}),
  }
}

/** A copy without metadata.managedFields, of the object or of each item of a list (copyWithoutManagedFields). */
export function withoutManagedFields(body: unknown): unknown {
  if (!isObject(body)) return body
  const strip = (obj: unknown): unknown => {
    if (!isObject(obj) || !isObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj
    const { managedFields: _dropped, ...metadata } = obj.metadata
    return { ...obj, metadata }
  }
  const copy = strip(body) as Record<string, unknown>
  if (Array.isArray(copy.items)) return { ...copy, items: copy.items.map(strip) }
  return copy
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : ''
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
