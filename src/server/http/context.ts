/**
 * The context of one request as the listener makes it: what the request target says, parsed
 * once. The WHATWG URL is only built when something reads it (a handler's query parameters);
 * most requests on the hot path (probes, GET of one object) never need it.
 */
import { randomUuid } from '../../core/util/random-uuid.js'
import type { Request, RequestContext, RequestInfo, UserInfo } from './types.js'
import { resolveRequestInfo } from './request-info.js'

const BASE = 'https://server.invalid'

export class IncomingContext implements RequestContext {
  readonly receivedAt = Date.now()
  readonly auditId: string
  readonly rawQuery: string
  readonly info: RequestInfo
  user?: UserInfo
  deadline?: number
  private parsed: URL | undefined

  /** `path`: the decoded path of `target` (decodeRequestPath). */
  constructor(
    req: Request,
    private readonly target: string,
    path: string,
  ) {
    const given = req.headers['audit-id']
    this.auditId = typeof given === 'string' && given !== '' ? given : randomUuid()
    const q = target.indexOf('?')
    if (q < 0) this.rawQuery = ''
    else {
      const h = target.indexOf('#', q + 1)
      this.rawQuery = target.slice(q + 1, h < 0 ? target.length : h)
    }
    this.info = resolveRequestInfo(req.method ?? 'GET', this, path)
  }

  get url(): URL {
    return (this.parsed ??= new URL(this.target, BASE))
  }
}

/**
 * The request's query parameters. A request without a query (most GETs of one object) gets
 * empty parameters without its URL being parsed; one with a query reads them from its URL.
 */
export function queryOf(ctx: RequestContext): URLSearchParams {
  return ctx.rawQuery === '' ? new URLSearchParams() : ctx.url.searchParams
}
