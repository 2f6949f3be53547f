/**
 * A test OTLP trace receiver: a gRPC server on 127.0.0.1 serving
 * `opentelemetry.proto.collector.trace.v1.TraceService/Export` (the upstream proto's fields it
 * reads are in otlp/trace-service.proto) that records every span it receives with its
 * resource's attributes, ids in hex. Stopped with `close()`.
 */
import { fileURLToPath } from 'node:url'
import { type ServerUnaryCall, type sendUnaryData, Server, ServerCredentials, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js'
import { loadSync } from '@grpc/proto-loader'

type Obj = Record<string, any>

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  kind: number
  attributes: Record<string, string | number | boolean>
  resource: Record<string, string | number | boolean>
}

const PROTO = fileURLToPath(new URL('./otlp/trace-service.proto', import.meta.url))

const hex = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('hex')

function attributes(list: Obj[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {}
  for (const { key, value } of list ?? []) {
    const v = value ?? {}
    out[key] = v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue)
  }
  return out
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = []

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** The endpoint for a TracingConfiguration. */
  get endpoint(): string {
    return `127.0.0.1:${this.port}`
  }

  static async start(): Promise<OtlpReceiver> {
    const definition = loadSync(PROTO, { longs: String, bytes: String, defaults: false, oneofs: false })
    const pkg = loadPackageDefinition(definition) as Obj
    const service = (pkg.opentelemetry.proto.collector.trace.v1.TraceService as ServiceClientConstructor).service
    const server = new Server()
    let self: OtlpReceiver | undefined
    server.addService(service, {
      Export(call: ServerUnaryCall<Obj, Obj>, callback: sendUnaryData<Obj>) {
        for (const rs of call.request.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes)
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              self!.spans.push({ traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name ?? '', kind: s.kind ?? 0, attributes: attributes(s.attributes), resource })
            }
          }
        }
        callback(null, {})
      },
    })
    const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))))
    self = new OtlpReceiver(server, port)
    return self
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.tryShutdown(() => resolve()))
  }
}
