/**
 * What kubectl prints for an error answer of the server (cmdutil.CheckErr on an API status
 * error): `The Deployment "web" is invalid: ...` for Invalid, `Error from server (Reason): ...`
 * otherwise. Shared by `patch` against a server and `validate`, which hands the same answers
 * from the offline server.
 */
import type { RestResponse } from './rest-client.js'

export interface Status {
  reason?: string
  message?: string
  details?: { name?: string; group?: string; kind?: string; causes?: { field?: string; message?: string }[] }
}

export function statusOf(res: Pick<RestResponse, 'body'>): Status | undefined {
  try {
    const v = JSON.parse(res.body) as Record<string, unknown>
    if (v !== null && typeof v === 'object' && v.kind === 'Status') return v as Status
  } catch {
    // not a Status
  }
  return undefined
}

// apimachinery's texts for an error status without a Status body.
export const UNKNOWN_REASON: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Expired', 'the server reported a gone error'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because the request entity is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to respond with a content type that the client supports'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
}

/** What kubectl prints for an error response (cmdutil.CheckErr on an API status error). */
export function apiErrorText(res: Pick<RestResponse, 'status' | 'body'>): string {
  const status = statusOf(res)
  if (!status) {
    const known = UNKNOWN_REASON[res.status]
    if (known) return `Error from server (${known[0]}): ${known[1]}`
    const reason = res.status >= 500 ? 'InternalError' : 'BadRequest'
    return `Error from server (${reason}): an error on the server (${JSON.stringify(res.body.trim() || 'unknown')}) has prevented the request from succeeding`
  }
  const reason = status.reason ?? ''
  const message = status.message ?? ''
  if (reason === 'Invalid') {
    const details = status.details
    let s = 'The request is invalid'
    if (!details) return message !== '' ? `${s}: ${message}` : s
    if (details.kind || details.name) s = `The ${details.kind ?? ''} ${JSON.stringify(details.name ?? '')} is invalid`
    // The message repeats the causes (the reference's NewInvalid): kubectl adds it only without them.
    else if (message !== '' && (details.causes ?? []).length === 0) s += `: ${message}`
    // statusCausesToAggrError: "<field>: <message>" per cause, a repeated text once.
    const causes = [...new Set((details.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`))]
    if (causes.length === 1) return `${s}: ${causes[0]}`
    if (causes.length > 1) return `${s}: \n${causes.map((c) => `* ${c}`).join('\n')}`
    return s
  }
  return reason !== '' ? `Error from server (${reason}): ${message}` : `Error from server: ${message}`
}
