/**
 * The request's span (the reference's WithTracing, endpoints/filters/traces.go, on otelhttp),
 * and the spans of the filters after authentication (the reference's filterlatency
 * TrackStarted/TrackCompleted pairs: `authentication`, `audit`, `impersonation`,
 * `priorityandfairness`, `authorization`). The request span is named
 * `<METHOD> /<prefix>/<group>/<version>/namespaces/{:namespace}/<resource>/{:name}/<subresource>`
 * for resource requests and `<METHOD>` for the others, takes its parent from an incoming W3C
 * `traceparent`, and carries `http.target`, `audit-id` and the status code. Without
 * `--tracing-config-file` neither is a link of the chain.
 */
import type { Filter, RequestInfo } from '../http/types.js'
import { tracing } from '../tracing/spans.js'

/** The reference's getSpanNameFromRequestInfo. */
export function requestSpanName(method: string, info: RequestInfo): string {
  if (!info.isResourceRequest) return method
  let name = `/${info.apiPrefix ?? ''}`
  if (info.apiGroup) name += `/${info.apiGroup}`
  name += `/${info.apiVersion ?? ''}`
  if (info.namespace) name += '/namespaces/{:namespace}'
  name += `/${info.resource ?? ''}`
  if (info.name) name += '/{:name}'
  if (info.subresource) name += `/${info.subresource}`
  return `${method} ${name}`
}

export function withTracing(): Filter {
  const provider = tracing()
  if (!provider) return (next) => next
  return (next) => (req, res, ctx) => {
    const method = req.method ?? 'GET'
    return provider.inSpan(
      requestSpanName(method, ctx.info),
      { kind: 'server', carrier: req.headers as Record<string, string | string[] | undefined>, attributes: { 'http.method': method, 'http.target': req.url ?? '', 'audit-id': ctx.auditId } },
      (span) => {
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          span.setAttributes({ 'http.status_code': res.statusCode })
          span.end()
        }
        res.once('finish', end)
        res.once('close', end)
        return next(req, res, ctx)
      },
    )
  }
}

/**
 * `filter` inside a span named `name`, ended when the filter hands the request on (or when it
 * is done, having answered it itself): the spans of later links and of the handler are its
 * children, as the reference's context carries the tracked span down.
 */
export function tracked(name: string, filter: Filter): Filter {
  const provider = tracing()
  if (!provider) return filter
  return (next) => {
    // Filters may hand on a new context object, never another request: the span is found by it.
    const open = new WeakMap<object, () => void>()
    const inner = filter((req, res, ctx) => {
      open.get(req)?.()
      return next(req, res, ctx)
    })
    return (req, res, ctx) =>
      provider.inSpan(name, {}, (span) => {
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          open.delete(req)
          span.end()
        }
        open.set(req, end)
        const result = inner(req, res, ctx)
        if (result instanceof Promise) return result.finally(end)
        end()
        return result
      })
  }
}
