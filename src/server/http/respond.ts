/** Writing responses the way the reference's Go server does, byte for byte where clients look. */
import type { Http2ServerResponse } from 'node:http2'
import type { Response } from './types.js'

/** HTTP/2's CANCEL error code (RFC 9113 section 7), node:http2's constants.NGHTTP2_CANCEL. */
const NGHTTP2_CANCEL = 0x8

/**
 * Whether a response is HTTP/2's (node:http2's compatibility API): the only one with a stream.
 * Asked without node:http2, which this module would otherwise load for every program that
 * writes an API answer (the offline validation among them), HTTP/2 or not.
 */
export function isHttp2(res: Response): res is Response & Http2ServerResponse {
  const stream = (res as { stream?: unknown }).stream
  return typeof stream === 'object' && stream !== null && 'session' in stream
}

/** Go's http.Error: text headers, no Content-Length from before, the message and a newline. */
export function httpError(res: Response, status: number, message: string): void {
  if (res.headersSent) return
  res.removeHeader('Content-Length')
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.statusCode = status
  res.end(`${message}\n`)
}

/** Go's http.NotFound. */
export function notFound(res: Response): void {
  httpError(res, 404, '404 page not found')
}

/** A plain-text body with the text headers the health handler sets explicitly. */
export function textResponse(res: Response, status: number, body: string, nosniff = true): void {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  if (nosniff) res.setHeader('X-Content-Type-Options', 'nosniff')
  res.statusCode = status
  res.end(body)
}

export function jsonResponse(res: Response, status: number, body: unknown, contentType = 'application/json'): void {
  res.setHeader('Content-Type', contentType)
  res.statusCode = status
  res.end(`${JSON.stringify(body)}\n`)
}

/**
 * Asks the client to close the connection after this response. HTTP/1.1 says so with a
 * header; HTTP/2 forbids that header, so the session is sent a GOAWAY instead.
 */
export function closeAfterResponse(res: Response): void {
  if (isHttp2(res)) {
    const session = res.stream.session
    res.once('finish', () => {
      if (session && !session.closed && !session.destroyed) session.goaway()
    })
    return
  }
  res.setHeader('Connection', 'close')
}

/**
 * Ends the request's exchange with its answer when the body is left unread (a 413 past the
 * drain limit): the HTTP/1.1 connection closes after the answer, as Go's server does past its
 * discard limit. An HTTP/2 stream is reset (CANCEL) once the answer is queued: the client,
 * blocked by flow control on a body nobody reads, would otherwise wait forever, while the
 * session's other streams go on. Call before writing the answer; call the returned function after.
 */
export function closeUnreadRequest(res: Response): () => void {
  if (isHttp2(res)) {
    const stream = res.stream
    return () =>
      setImmediate(() => {
        if (!stream.closed && !stream.destroyed) stream.close(NGHTTP2_CANCEL)
      })
  }
  if (!res.headersSent) res.setHeader('Connection', 'close')
  return () => undefined
}
