/**
 * The objects a request's audit event records (the reference's LogRequestObject and
 * LogResponseObject calls in its handlers): the handlers note the object they decoded from
 * the body and the object they answered with, whatever the wire format (JSON, YAML or
 * protobuf); the audit filter reads them when it makes the event. Noting costs one property
 * on the request or response; nothing is copied.
 */
import type { Request, Response } from './types.js'

const REQUEST_OBJECT = Symbol('auditRequestObject')
const RESPONSE_OBJECT = Symbol('auditResponseObject')

export function noteRequestObject(req: Request, obj: unknown): void {
  ;(req as { [REQUEST_OBJECT]?: unknown })[REQUEST_OBJECT] = obj
}

export function requestObjectOf(req: Request): unknown {
  return (req as { [REQUEST_OBJECT]?: unknown })[REQUEST_OBJECT]
}

export function noteResponseObject(res: Response, obj: unknown): void {
  ;(res as { [RESPONSE_OBJECT]?: unknown })[RESPONSE_OBJECT] = obj
}

export function responseObjectOf(res: Response): unknown {
  return (res as { [RESPONSE_OBJECT]?: unknown })[RESPONSE_OBJECT]
}
