/**
 * A test external JWT signer: the reference's ExternalJWTSigner gRPC service (v1) on a Unix
 * socket in a temporary directory, signing with an ECDSA P-256 key of its own under a key id it
 * chooses, as the reference's mock signer does. It counts the calls it answers.
 */
import { type KeyObject, createSign, generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serviceDefinition } from '../../src/server/authentication/externaljwt/client.js'

export interface TestSignerOptions {
  keyId?: string
  maxTokenExpirationSeconds?: number
  refreshHintSeconds?: number
  /** Extra keys published as excluded from OIDC discovery (verification only). */
  excludedKeys?: Array<{ keyId: string; key: KeyObject }>
}

export class TestJwtSigner {
  readonly calls = { sign: 0, fetchKeys: 0, metadata: 0 }
  /** The payloads signed, decoded. */
  readonly signed: Array<Record<string, unknown>> = []

  private constructor(
    readonly socketPath: string,
    private readonly dir: string,
    readonly keyId: string,
    readonly publicKey: KeyObject,
    private readonly server: import('@grpc/grpc-js').Server,
  ) {}

  static async start(options: TestSignerOptions = {}): Promise<TestJwtSigner> {
    const { grpc, service } = await serviceDefinition()
    const dir = mkdtempSync(join(tmpdir(), 'jwt-signer-'))
    const socketPath = join(dir, 'signer.sock')
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const keyId = options.keyId ?? 'test-signer-key-1'
    const server = new grpc.Server()
    const signer = new TestJwtSigner(socketPath, dir, keyId, publicKey, server)
    const der = (k: KeyObject) => k.export({ type: 'spki', format: 'der' })
    server.addService(service.service, {
      Sign(call: { request: { claims: string } }, callback: (err: Error | null, r?: object) => void) {
        signer.calls.sign++
        signer.signed.push(JSON.parse(Buffer.from(call.request.claims, 'base64url').toString('utf8')) as Record<string, unknown>)
        const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: keyId, typ: 'JWT' })).toString('base64url')
        const signature = createSign('SHA256').update(`${header}.${call.request.claims}`).sign({ key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')
        callback(null, { header, signature })
      },
      FetchKeys(_call: unknown, callback: (err: Error | null, r?: object) => void) {
        signer.calls.fetchKeys++
        const now = Date.now()
        callback(null, {
          keys: [
            { key_id: keyId, key: der(publicKey), exclude_from_oidc_discovery: false },
            ...(options.excludedKeys ?? []).map((k) => ({ key_id: k.keyId, key: der(k.key), exclude_from_oidc_discovery: true })),
          ],
          data_timestamp: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 },
          refresh_hint_seconds: options.refreshHintSeconds ?? 3600,
        })
      },
      Metadata(_call: unknown, callback: (err: Error | null, r?: object) => void) {
        signer.calls.metadata++
        callback(null, { max_token_expiration_seconds: options.maxTokenExpirationSeconds ?? 24 * 3600 })
      },
    })
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix:${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
    )
    return signer
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()))
    rmSync(this.dir, { recursive: true, force: true })
  }
}
