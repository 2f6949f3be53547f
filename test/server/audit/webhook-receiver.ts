/**
 * A local HTTPS audit webhook receiver for the tests (the reference's webhook_test.go
 * newWebhookHandler over httptest): its certificates, and a server that records every POST
 * and answers `{}`, or what the test says.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'

type Obj = Record<string, any>

export interface Pki {
  caCert: string
  otherCaCert: string
  serverCert: string
  serverKey: string
  clientCert: string
  clientKey: string
}

export async function makePki(): Promise<Pki> {
  const notBefore = new Date(Date.now() - 3_600_000)
  const notAfter = new Date(Date.now() + 86_400_000)
  const caKey = await generateKey('ecdsa')
  const caCert = await createCaCertificate({ key: caKey, commonName: 'audit-webhook-ca', notBefore, notAfter })
  const otherKey = await generateKey('ecdsa')
  const otherCaCert = await createCaCertificate({ key: otherKey, commonName: 'other-ca', notBefore, notAfter })
  const serverKey = await generateKey('ecdsa')
  const serverCert = await createLeafCertificate({ ca: { certPem: caCert, privateKey: caKey.privateKey }, publicKey: serverKey.publicKey, commonName: 'receiver', dns: ['localhost'], ips: ['127.0.0.1'], notBefore, notAfter })
  const clientKey = await generateKey('ecdsa')
  const clientCert = await createLeafCertificate({ ca: { certPem: caCert, privateKey: caKey.privateKey }, publicKey: clientKey.publicKey, commonName: 'kube-apiserver', dns: [], ips: [], usage: 'client', notBefore, notAfter })
  return { caCert, otherCaCert, serverCert, serverKey: privateKeyPem(serverKey.privateKey), clientCert, clientKey: privateKeyPem(clientKey.privateKey) }
}

/** One POST as the receiver saw it. */
export interface Delivery {
  at: number
  method: string
  path: string
  contentType: string
  body: Obj
}

/**
 * A test receiver (the reference's newWebhookHandler over httptest): records each POST and
 * answers `{}` with 200, or what `answer` says for the n-th POST (0-based).
 */
export class Receiver {
  readonly deliveries: Delivery[] = []
  answer: (n: number, res: ServerResponse) => boolean = () => false
  private server?: Server
  port = 0

  constructor(
    private readonly pki: Pki,
    private readonly requireClientCert = false,
  ) {}

  async listen(port = 0): Promise<void> {
    const server = createServer({ cert: this.pki.serverCert, key: this.pki.serverKey, ...(this.requireClientCert ? { ca: this.pki.caCert, requestCert: true, rejectUnauthorized: true } : {}) }, (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const n = this.deliveries.length
        this.deliveries.push({ at: Date.now(), method: req.method ?? '', path: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj })
        if (this.answer(n, res)) return
        res.setHeader('content-type', 'application/json')
        res.end('{}')
      })
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.server = server
    this.port = (server.address() as AddressInfo).port
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`
  }

  async close(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Go's http.Error: a text answer with the code. */
export function httpError(res: ServerResponse, code: number, text: string): true {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' })
  res.end(`${text}\n`)
  return true
}
