/**
 * The OpenTelemetry tracer provider of `--tracing-config-file`, as the reference's
 * tracing.NewProvider builds it (k8s.io/component-base/tracing/tracing.go): an OTLP gRPC
 * exporter to the configured endpoint (localhost:4317 by default, without TLS), a batch span
 * processor, the sampler ParentBased(TraceIDRatioBased(samplingRatePerMillion / 10^6)) (a rate
 * of 0 or none: only requests whose incoming parent is sampled), the W3C trace-context and
 * baggage propagators, and the resource `service.name=apiserver` with a `service.instance.id`
 * (the reference's TracingOptions.ApplyTo). Imported only when the option is given: the SDK and
 * gRPC are a large load.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { credentials } from '@grpc/grpc-js'
import { type Context, type ContextManager, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api'
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOffSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base'
import { DEFAULT_TRACING_ENDPOINT, type TracingConfiguration } from '../../core/config-files/tracing-config.js'
import type { SpanHandle, SpanOptions, Tracing } from './spans.js'

/** The reference's apiserverService. */
export const SERVICE_NAME = 'apiserver'
const TRACER_NAME = 'k8s.io/apiserver'

/** The active context across awaits (the role of @opentelemetry/context-async-hooks, in a few lines). */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args))
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target
    const manager = this
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(this, args))
    } as T
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.storage.disable()
    return this
  }
}

/** The exporter's target for the configuration's endpoint (gRPC naming: host:port, dns://, unix://). */
function exporterUrl(endpoint: string): string {
  if (endpoint.startsWith('unix:') ) return endpoint
  const host = endpoint.replace(/^dns:\/\/[^/]*\//, '').replace(/^dns:\/\//, '')
  return `http://${host}`
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const

/** Builds the provider and makes it the process's (its context manager and propagators). */
export function startTracing(config: TracingConfiguration, instanceId = `apiserver-${randomUUID()}`): Tracing {
  const rate = config.samplingRatePerMillion ?? 0
  const sampler = new ParentBasedSampler({ root: rate > 0 ? new TraceIdRatioBasedSampler(rate / 1_000_000) : new AlwaysOffSampler() })
  const exporter = new OTLPTraceExporter({ url: exporterUrl(config.endpoint ?? DEFAULT_TRACING_ENDPOINT), credentials: credentials.createInsecure() })
  const provider = new BasicTracerProvider({
    sampler,
    resource: resourceFromAttributes({ 'service.name': SERVICE_NAME, 'service.instance.id': instanceId }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  })
  const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] })
  context.setGlobalContextManager(new AsyncLocalContextManager())
  propagation.setGlobalPropagator(propagator)
  trace.setGlobalTracerProvider(provider)
  const tracer = provider.getTracer(TRACER_NAME)
  return {
    inSpan(name, options: SpanOptions, fn) {
      const parent = options.carrier ? propagation.extract(context.active(), options.carrier, {
        get: (carrier, key) => carrier[key],
        keys: (carrier) => Object.keys(carrier),
      }) : context.active()
      const span = tracer.startSpan(name, { kind: KINDS[options.kind ?? 'internal'], ...(options.attributes ? { attributes: options.attributes } : {}) }, parent)
      const handle: SpanHandle = {
        setAttributes: (attributes) => span.setAttributes(attributes),
        recordError: (err) => {
          span.recordException(err instanceof Error ? err : String(err))
          span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
        },
        end: () => span.end(),
      }
      return context.with(trace.setSpan(parent, span), () => fn(handle))
    },
    inject(headers) {
      propagation.inject(context.active(), headers)
    },
    shutdown: () => provider.shutdown(),
  }
}
