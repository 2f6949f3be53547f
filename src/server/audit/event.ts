/**
 * The audit event model (the reference's `audit.k8s.io/v1` types: Event, EventList, Level,
 * Stage, ObjectReference). Events are what the policy lets through to the backends, one per
 * stage of a request; the webhook backend sends them as an EventList.
 */

/** How much of a request an event records, least first. */
export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse'

export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse']

/** Whether `level` records less than `other` (the reference's Level.Less). */
export function levelLess(level: Level, other: Level): boolean {
  return LEVELS.indexOf(level) < LEVELS.indexOf(other)
}

/** Whether `level` records at least as much as `other` (the reference's Level.GreaterOrEqual). */
export function levelAtLeast(level: Level, other: Level): boolean {
  return !levelLess(level, other)
}

/**
 * Where in its handling a request is when its event is made: RequestReceived as it arrives,
 * ResponseStarted once the headers of a long-running response went, ResponseComplete when it
 * is answered, Panic when its handling failed.
 */
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic'

export const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic']

/** The `authentication.k8s.io/v1` UserInfo an event names. */
export interface AuditUserInfo {
  username?: string
  uid?: string
  groups?: string[]
  extra?: Record<string, string[]>
}

/** The object a resource request is about. */
export interface ObjectReference {
  resource?: string
  namespace?: string
  name?: string
  uid?: string
  apiGroup?: string
  apiVersion?: string
  resourceVersion?: string
  subresource?: string
}

/** The Status of the response (metav1.Status; at Metadata level only its code and, on failure, its reason). */
export interface ResponseStatus {
  metadata: Record<string, unknown>
  status?: string
  message?: string
  reason?: string
  details?: unknown
  code?: number
}

export interface AuditEvent {
  kind: 'Event'
  apiVersion: 'audit.k8s.io/v1'
  level: Level
  /** The request's Audit-ID (the header the server sends). */
  auditID: string
  stage: Stage
  requestURI: string
  /** The lower-case verb of the request info: get, list, watch, create ...; for non-resource requests the method. */
  verb: string
  user: AuditUserInfo
  impersonatedUser?: AuditUserInfo
  sourceIPs?: string[]
  userAgent?: string
  objectRef?: ObjectReference
  responseStatus?: ResponseStatus
  /** The request body (level Request and up), as the client sent it. */
  requestObject?: unknown
  /** The response body (level RequestResponse). */
  responseObject?: unknown
  /** MicroTime: RFC 3339 with microseconds, UTC. */
  requestReceivedTimestamp: string
  stageTimestamp: string
  /** Authorization decision and reason, admission annotations ... */
  annotations?: Record<string, string>
}

export interface AuditEventList {
  kind: 'EventList'
  apiVersion: 'audit.k8s.io/v1'
  metadata: { resourceVersion?: string }
  items: AuditEvent[]
}

/**
 * The reference's MicroTime in JSON, `2006-01-02T15:04:05.000000Z`: `epochMs` may carry
 * microseconds as its fraction (see preciseNow).
 */
export function microTime(epochMs: number): string {
  const whole = Math.floor(epochMs)
  const micros = Math.min(999, Math.floor((epochMs - whole) * 1000))
  // Two events per request share their milliseconds often: the date's text is kept.
  if (whole !== lastWhole) {
    lastWhole = whole
    lastPrefix = new Date(whole).toISOString().slice(0, 23)
  }
  return `${lastPrefix}${micros < 10 ? '00' : micros < 100 ? '0' : ''}${micros}Z`
}

let lastWhole = Number.NaN
let lastPrefix = ''

/** Now, in milliseconds since the epoch with microseconds as the fraction. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now()
}
