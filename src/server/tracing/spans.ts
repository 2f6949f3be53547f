/**
 * The server's spans, as the places that open them see them: no OpenTelemetry import here, so
 * a server without `--tracing-config-file` loads none of it (provider.ts, which does, is
 * imported only when the option is given). Until a provider is installed every helper is a
 * no-op that costs one check.
 */
export type SpanAttributes = Record<string, string | number | boolean>

export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void
  recordError(err: unknown): void
  end(): void
}

/** Where a span's parent comes from: the active span, or a W3C `traceparent` in request headers. */
export interface SpanOptions {
  attributes?: SpanAttributes
  kind?: 'server' | 'client' | 'internal'
  /** Incoming headers to take the parent from (the request span). */
  carrier?: Record<string, string | string[] | undefined>
}

export interface Tracing {
  /** Starts a span and runs `fn` with it active (spans started inside are its children); `fn` ends it. */
  inSpan<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => T): T
  /** The active span's context as W3C headers (`traceparent`, `tracestate`). */
  inject(headers: Record<string, string>): void
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>
}

let installed: Tracing | undefined

export function installTracing(tracing: Tracing | undefined): void {
  installed = tracing
}

/** The provider, undefined when tracing is off. */
export function tracing(): Tracing | undefined {
  return installed
}

/**
 * Runs `fn` in a child span of the active one, ended when its promise settles (an error
 * recorded on it); just `fn` when tracing is off.
 */
export function withSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T> {
  if (!installed) return fn()
  return installed.inSpan(name, { attributes }, async (span) => {
    try {
      return await fn()
    } catch (err) {
      span.recordError(err)
      throw err
    } finally {
      span.end()
    }
  })
}

/** The W3C trace context headers of the active span for an outgoing request ({} when tracing is off). */
export function traceContextHeaders(): Record<string, string> {
  if (!installed) return {}
  const headers: Record<string, string> = {}
  installed.inject(headers)
  return headers
}
