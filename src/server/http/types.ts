/**
 * The request and response the server's filters and handlers see. HTTP/2 and HTTP/1.1 arrive
 * through one server (ALPN), so both shapes are accepted; the context of a request lives
 * beside it, not on it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2'
import type { LatencyTrackers } from './latency-trackers.js'

export type Request = IncomingMessage | Http2ServerRequest
export type Response = ServerResponse | Http2ServerResponse

/** Who made the request, once authentication has run. */
export interface UserInfo {
  name: string
  uid?: string
  groups: string[]
  extra?: Record<string, string[]>
}

/** What the path says the request is, as the reference's request-info resolver derives it. */
export interface RequestInfo {
  isResourceRequest: boolean
  path: string
  /** Lower-case verb: get, list, watch, create, update, patch, delete, deletecollection; for non-resource requests the lower-case method. */
  verb: string
  apiPrefix?: string
  apiGroup?: string
  apiVersion?: string
  namespace?: string
  resource?: string
  subresource?: string
  /** The path's name, or for list and watch the name a `metadata.name=` field selector asks for (as the reference's). */
  name?: string
  /** The path's parts from the resource on (`pods/foo/status`), as the reference's Parts; resource requests only. */
  parts?: string[]
  /** The raw `fieldSelector` and `labelSelector` of a list, watch or deletecollection (not of a /watch/ path), for authorization. */
  fieldSelector?: string
  labelSelector?: string
  /** Why the resolver could not make sense of a resource path (`/api/v1/watch`): the request is answered 500. */
  error?: string
  /** Watches and other streams: exempt from in-flight limits and the request timeout. */
  longRunning: boolean
}

export interface RequestContext {
  /** Milliseconds since the epoch when the request arrived. */
  receivedAt: number
  auditId: string
  url: URL
  /** The raw query of the request target, without `?` ('' when there is none); unknown when absent. */
  rawQuery?: string
  info: RequestInfo
  user?: UserInfo
  /** When the request must have been answered (ms since the epoch); undefined for long-running ones. */
  deadline?: number
  /**
   * The audit annotations admission plugins left on the request
   * (`<plugin>.admission.k8s.io/<key>` to value), for the request's audit event.
   */
  auditAnnotations?: Record<string, string>
  /** Where the request's time went, by layer; present while the request is audited. */
  latencyTrackers?: LatencyTrackers
}

export type Handler = (req: Request, res: Response, ctx: RequestContext) => void | Promise<void>

/** One link of the chain: takes the rest of the chain and returns a handler that runs before it. */
export type Filter = (next: Handler) => Handler
