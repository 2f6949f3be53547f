/**
 * An event's JSON line as the reference writes it: the fields in the order of its v1 struct,
 * empty ones left out, each value as JSON.stringify writes it. Written field by field rather
 * than by stringifying a reordered copy: the log backend writes two events per audited
 * request, and the copy and the generic walk of the event were the largest part of audit's
 * cost per request (issue 33's bench). Nested values whose shape is known (the user, the
 * objectRef, the annotations: strings and lists of strings) are written the same way; bodies
 * and anything else go to JSON.stringify.
 */
import type { AuditEvent } from './event.js'

const stringify = JSON.stringify

/** What JSON.stringify would escape in a string: quotes, backslashes, control characters, and surrogates (lone ones are escaped; pairs are left to it). */
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/

function quoted(s: string): string {
  return NEEDS_ESCAPING.test(s) ? stringify(s) : `"${s}"`
}

/** A value as JSON.stringify writes it, or undefined where it leaves the field out. */
function json(v: unknown): string | undefined {
  return typeof v === 'string' ? quoted(v) : (stringify(v) as string | undefined)
}

function isStringList(v: unknown): v is readonly string[] {
  if (!Array.isArray(v)) return false
  for (const item of v) if (typeof item !== 'string') return false
  return true
}

function stringList(list: readonly string[]): string {
  if (list.length === 1) return `[${repeatedJson(list[0])!}]`
  let out = '['
  for (let i = 0; i < list.length; i++) out += (i > 0 ? ',' : '') + repeatedJson(list[i])!
  return `${out}]`
}

/** A plain object of strings and lists of strings (any other value: JSON.stringify's). */
function flatObject(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype || 'toJSON' in v) return json(v)
  const obj = v as Record<string, unknown>
  let out = ''
  for (const key of Object.keys(obj)) {
    const value = obj[key]
    const text = typeof value === 'string' ? repeatedJson(value) : isStringList(value) ? stringList(value) : json(value)
    if (text !== undefined) out += `,${repeatedJson(key)!}:${text}`
  }
  return out === '' ? '{}' : `{${out.slice(1)}}`
}

/**
 * The JSON of the values that repeat from event to event (kind, apiVersion, level, stage,
 * verb; the user's name and groups, the objectRef's resource, namespace and version, the
 * annotations' keys and values), kept: each event would otherwise check and allocate them
 * again. At most REPEATED_MAX, emptied when full, so that the values in use come back.
 */
const repeated = new Map<string, string>()
const REPEATED_MAX = 256

function repeatedJson(v: unknown): string | undefined {
  if (typeof v !== 'string') return json(v)
  let text = repeated.get(v)
  if (text === undefined) {
    text = quoted(v)
    if (repeated.size >= REPEATED_MAX) repeated.clear()
    repeated.set(v, text)
  }
  return text
}

/** `,"name":` of each field, made once. */
const prefixes = new Map<string, string>()
function prefix(name: string): string {
  let text = prefixes.get(name)
  if (text === undefined) prefixes.set(name, (text = `,"${name}":`))
  return text
}

const field = (name: string, text: string | undefined): string => (text === undefined ? '' : prefix(name) + text)
const jsonField = (name: string, v: unknown): string => (v === undefined ? '' : field(name, json(v)))
const repeatedField = (name: string, v: unknown): string => (v === undefined ? '' : field(name, repeatedJson(v)))
const flatField = (name: string, v: unknown): string => (v === undefined ? '' : field(name, flatObject(v)))

export function eventJson(e: AuditEvent): string {
  const request = requestJson(e)
  const rest =
    request.auditID +
    repeatedField('stage', e.stage) +
    request.rest +
    responseStatusField(e.responseStatus) +
    jsonField('requestObject', e.requestObject) +
    jsonField('responseObject', e.responseObject) +
    jsonField('requestReceivedTimestamp', e.requestReceivedTimestamp) +
    jsonField('stageTimestamp', e.stageTimestamp) +
    flatField('annotations', e.annotations)
  // Every event has its kind first: the line is built without slicing off a leading comma
  // (a slice copies the whole line once more).
  const opening = openingJson(e)
  if (opening !== undefined) return `${opening}${rest}}`
  const out = repeatedField('kind', e.kind) + repeatedField('apiVersion', e.apiVersion) + repeatedField('level', e.level) + rest
  return out === '' ? '{}' : `{${out.slice(1)}}`
}

/** `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":…` of each level, made once. */
const openingByLevel = new Map<unknown, string>()

function openingJson(e: AuditEvent): string | undefined {
  if (e.kind !== 'Event' || e.apiVersion !== 'audit.k8s.io/v1' || typeof e.level !== 'string') return undefined
  let text = openingByLevel.get(e.level)
  if (text === undefined) {
    text = `{${(repeatedField('kind', e.kind) + repeatedField('apiVersion', e.apiVersion) + repeatedField('level', e.level)).slice(1)}`
    if (openingByLevel.size < REPEATED_MAX) openingByLevel.set(e.level, text)
  }
  return text
}

/**
 * The request's own fields: its auditID and the run from requestURI to objectRef. They are the
 * same in every event of a request (the filter replaces objectRef and impersonatedUser at
 * most, and never changes the values inside an event's fields once handed over, see
 * AuditBackend), so the last request's JSON is kept and reused while an event holds the very
 * same values (its user object is each request's own). One kept request is enough: a request's
 * events come one after the other in the log (its ResponseComplete follows its RequestReceived
 * unless the handling waited), and a map of many requests cost more in garbage collection than
 * it saved (issue 33's bench).
 */
interface RequestJson {
  /** `,"auditID":…` and the fields from requestURI to objectRef: the stage comes between them. */
  readonly auditID: string
  readonly rest: string
}

interface KeptRequestJson extends RequestJson {
  readonly user: object
  readonly auditIDValue: unknown
  readonly requestURI: unknown
  readonly verb: unknown
  readonly impersonatedUser: unknown
  readonly sourceIPs: unknown
  readonly userAgent: unknown
  readonly objectRef: unknown
}

let last: KeptRequestJson | undefined

function requestJson(e: AuditEvent): RequestJson {
  const user = e.user as unknown
  const keyed = typeof user === 'object' && user !== null
  const kept = last
  if (kept !== undefined && kept.user === user && kept.auditIDValue === e.auditID && kept.requestURI === e.requestURI && kept.verb === e.verb && kept.impersonatedUser === e.impersonatedUser && kept.sourceIPs === e.sourceIPs && kept.userAgent === e.userAgent && kept.objectRef === e.objectRef) {
    return kept
  }
  const auditID = jsonField('auditID', e.auditID)
  const rest = jsonField('requestURI', e.requestURI) + repeatedField('verb', e.verb) + flatField('user', e.user) + flatField('impersonatedUser', e.impersonatedUser) + (e.sourceIPs === undefined ? '' : field('sourceIPs', isStringList(e.sourceIPs) ? stringList(e.sourceIPs) : json(e.sourceIPs))) + jsonField('userAgent', e.userAgent) + flatField('objectRef', e.objectRef)
  if (!keyed) return { auditID, rest }
  last = { user, auditID, rest, auditIDValue: e.auditID, requestURI: e.requestURI, verb: e.verb, impersonatedUser: e.impersonatedUser, sourceIPs: e.sourceIPs, userAgent: e.userAgent, objectRef: e.objectRef }
  return last
}

/**
 * `,"responseStatus":…`: most are `{"metadata":{},"code":<code>}` (a response that is no
 * Status), kept per code; any other shape is JSON.stringify's.
 */
const statusByCode = new Map<number, string>()

function responseStatusField(status: unknown): string {
  if (status === undefined) return ''
  if (typeof status === 'object' && status !== null && Object.getPrototypeOf(status) === Object.prototype) {
    const s = status as Record<string, unknown>
    const keys = Object.keys(s)
    const metadata = s.metadata
    if (keys.length === 2 && keys[0] === 'metadata' && keys[1] === 'code' && typeof s.code === 'number' && Number.isInteger(s.code) && typeof metadata === 'object' && metadata !== null && Object.getPrototypeOf(metadata) === Object.prototype && Object.keys(metadata).length === 0) {
      let text = statusByCode.get(s.code)
      if (text === undefined) {
        text = field('responseStatus', stringify(status))
        if (statusByCode.size < REPEATED_MAX) statusByCode.set(s.code, text)
      }
      return text
    }
  }
  return jsonField('responseStatus', status)
}
