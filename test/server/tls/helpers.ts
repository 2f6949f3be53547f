/** Shared fixtures for the TLS serving tests: certificates, servers and handshakes. */
import crypto from 'node:crypto'
import fs from 'node:fs'
import http2 from 'node:http2'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import {
  DAY_MS,
  HOUR_MS,
  createCaCertificate,
  createLeafCertificate,
  generateKey,
  privateKeyPem,
  type KeyPair,
} from '../../../src/server/tls/generate.js'
import type { ServingOptions, ServingTls } from '../../../src/server/tls/index.js'

export function tmpDir(prefix = 'client-tls-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

export interface TestCa {
  certPem: string
  key: KeyPair
}

export async function makeCa(commonName = 'test-ca', lifetimeMs = 30 * DAY_MS): Promise<TestCa> {
  const key = await generateKey('rsa')
  const now = Date.now()
  const certPem = await createCaCertificate({ key, commonName, notBefore: new Date(now - HOUR_MS), notAfter: new Date(now + lifetimeMs) })
  return { certPem, key }
}

export interface TestLeaf {
  certPem: string
  keyPem: string
}

export async function makeLeaf(
  ca: TestCa,
  opts: { cn: string; dns?: string[]; ips?: string[]; keyType?: 'rsa' | 'ecdsa'; notBefore?: Date; notAfter?: Date },
): Promise<TestLeaf> {
  const key = await generateKey(opts.keyType ?? 'rsa')
  const now = Date.now()
  const certPem = await createLeafCertificate({
    ca: { certPem: ca.certPem, privateKey: ca.key.privateKey },
    publicKey: key.publicKey,
    commonName: opts.cn,
    dns: opts.dns ?? [],
    ips: opts.ips ?? [],
    notBefore: opts.notBefore ?? new Date(now - HOUR_MS),
    notAfter: opts.notAfter ?? new Date(now + 30 * DAY_MS),
  })
  return { certPem, keyPem: privateKeyPem(key.privateKey) }
}

/** Writes `<name>.crt` and `<name>.key` into dir and returns their paths. */
export function writePair(dir: string, name: string, certPem: string, keyPem: string): { certFile: string; keyFile: string } {
  const certFile = path.join(dir, `${name}.crt`)
  const keyFile = path.join(dir, `${name}.key`)
  fs.writeFileSync(certFile, certPem)
  fs.writeFileSync(keyFile, keyPem, { mode: 0o600 })
  return { certFile, keyFile }
}

export interface RunningServer {
  port: number
  host: string
  server: tls.Server
  close(): Promise<void>
}

/** An https (or http2 with HTTP/1.1 fallback) server answering `ok`, on host:0. */
export async function startServer(
  serving: ServingTls,
  opts: { kind?: 'https' | 'http2'; host?: string; attach?: boolean } = {},
): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1'
  const handler = (_req: unknown, res: { statusCode: number; end(body: string): void }): void => {
    res.statusCode = 200
    res.end('ok')
  }
  const server: tls.Server = opts.kind === 'http2'
    ? http2.createSecureServer({ ...serving.secureOptions, allowHTTP1: true }, handler)
    : https.createServer(serving.secureOptions, handler)
  if (opts.attach !== false) serving.attach(server)
  // Failed handshakes are what several tests expect; keep them out of the output.
  server.on('tlsClientError', () => {})
  const sockets = new Set<import('node:net').Socket>()
  server.on('connection', (s: import('node:net').Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    host,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

export type Handshake =
  | {
      ok: true
      protocol: string | null
      cipher: tls.CipherNameAndProtocol
      alpn: string | false
      cert: tls.DetailedPeerCertificate
      authorized: boolean
    }
  | { ok: false; error: Error }

/** Connects, completes (or fails) the handshake, and disconnects. */
export function handshake(server: { port: number; host: string }, opts: tls.ConnectionOptions = {}): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: server.host, port: server.port, rejectUnauthorized: false, ...opts })
    socket.once('secureConnect', () => {
      const result: Handshake = {
        ok: true,
        protocol: socket.getProtocol(),
        cipher: socket.getCipher(),
        alpn: socket.alpnProtocol ?? false,
        cert: socket.getPeerCertificate(true),
        authorized: socket.authorized,
      }
      socket.destroy()
      resolve(result)
    })
    socket.once('error', (error) => {
      socket.destroy()
      resolve({ ok: false, error })
    })
  })
}

/** The subject CN of the certificate a handshake saw. */
export function peerCn(result: Handshake): string | undefined {
  if (!result.ok) throw new Error(`handshake failed: ${result.error.message}`)
  const cn = result.cert.subject?.CN
  return Array.isArray(cn) ? cn[cn.length - 1] : cn
}

/** An X509Certificate for the first certificate of a PEM text. */
export function x509(pem: string): crypto.X509Certificate {
  return new crypto.X509Certificate(pem)
}

/** Minimal options for prepareServing with a cert dir. */
export function baseOptions(certDir: string): ServingOptions & { certDir: string } {
  return { certDir, sniCertKeys: [], cipherSuites: [], bindAddress: '0.0.0.0', alpn: [], hostname: 'test-host.example' }
}
