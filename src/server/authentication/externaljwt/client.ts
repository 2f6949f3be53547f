/**
 * A client of the external JWT signer (--service-account-signing-endpoint): gRPC over the Unix
 * socket, insecure, authority `localhost`, as the reference's plugin dials it. A path starting
 * with `@` names a socket in the abstract namespace.
 *
 * Only ever reached by import() (plugin.ts): gRPC, its loader and the protobuf parser are a
 * side bundle of their own (scripts/bundle-commands.js), read only when the option is given.
 */
import * as grpc from '@grpc/grpc-js'
import * as loader from '@grpc/proto-loader'
import protobuf from 'protobufjs'
import { EXTERNAL_JWT_PROTO } from './api-proto.js'

export interface SignedParts {
  header: string
  signature: string
}

export interface ExternalKey {
  keyId: string
  /** PKIX (SubjectPublicKeyInfo) DER. */
  key: Buffer
  excludeFromOidcDiscovery: boolean
}

export interface FetchedKeys {
  keys: ExternalKey[]
  /** Milliseconds since the epoch, or undefined when the signer sent none. */
  dataTimestampMs?: number
  refreshHintSeconds: number
}

export interface ExternalSignerClient {
  sign(claims: string, timeoutMs?: number): Promise<SignedParts>
  fetchKeys(timeoutMs?: number): Promise<FetchedKeys>
  metadata(timeoutMs?: number): Promise<{ maxTokenExpirationSeconds: number }>
  close(): void
}

type Grpc = typeof grpc
type Unary = (request: object, options: { deadline: Date }, callback: (err: Error | null, response: Record<string, unknown>) => void) => void

/** The gRPC service definition, parsed once. */
export async function serviceDefinition(): Promise<{ grpc: Grpc; service: import('@grpc/grpc-js').ServiceClientConstructor }> {
  const root = new protobuf.Root()
  protobuf.parse(EXTERNAL_JWT_PROTO, root, { keepCase: true })
  root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!)
  const definition = loader.fromJSON(root.toJSON(), { keepCase: true, longs: Number, defaults: true })
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { v1: { ExternalJWTSigner: import('@grpc/grpc-js').ServiceClientConstructor } }
  return { grpc, service: loaded.v1.ExternalJWTSigner }
}

/** The socket path as a gRPC target: `unix:` for a file, `unix-abstract:` for `@name`. */
export function socketTarget(path: string): string {
  return path.startsWith('@') ? `unix-abstract:${path.slice(1)}` : `unix:${path}`
}

export async function dialExternalSigner(socketPath: string): Promise<ExternalSignerClient> {
  const { grpc, service } = await serviceDefinition()
  const client = new service(socketTarget(socketPath), grpc.credentials.createInsecure(), {
    'grpc.default_authority': 'localhost',
  })
  const call = (method: string, request: object, timeoutMs: number) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const fn = (client as unknown as Record<string, Unary>)[method]!.bind(client)
      fn(request, { deadline: new Date(Date.now() + timeoutMs) }, (err, response) => (err ? reject(err) : resolve(response)))
    })
  return {
    async sign(claims, timeoutMs = 30_000) {
      const r = await call('Sign', { claims }, timeoutMs)
      return { header: String(r.header ?? ''), signature: String(r.signature ?? '') }
    },
    async fetchKeys(timeoutMs = 60_000) {
      const r = await call('FetchKeys', {}, timeoutMs)
      const ts = r.data_timestamp as { seconds?: number; nanos?: number } | null | undefined
      return {
        keys: ((r.keys as Array<Record<string, unknown>> | undefined) ?? []).map((k) => ({
          keyId: String(k.key_id ?? ''),
          key: Buffer.from((k.key as Uint8Array | undefined) ?? []),
          excludeFromOidcDiscovery: k.exclude_from_oidc_discovery === true,
        })),
        ...(ts ? { dataTimestampMs: Number(ts.seconds ?? 0) * 1000 + Math.floor(Number(ts.nanos ?? 0) / 1e6) } : {}),
        refreshHintSeconds: Number(r.refresh_hint_seconds ?? 0),
      }
    },
    async metadata(timeoutMs = 10_000) {
      const r = await call('Metadata', {}, timeoutMs)
      return { maxTokenExpirationSeconds: Number(r.max_token_expiration_seconds ?? 0) }
    },
    close: () => client.close(),
  }
}
