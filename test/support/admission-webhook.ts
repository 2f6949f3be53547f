/**
 * A test admission webhook: an HTTPS server on 127.0.0.1 (its certificate names 127.0.0.1,
 * localhost and `webhook.default.svc`) that records the AdmissionReviews it receives, with
 * the request's path, and answers each with what `respond` makes of it (allowed by default).
 * Stopped with `close()`.
 */
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'

import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../src/server/tls/generate.js'

type Obj = Record<string, any>

/** The answer's `response` for a review (uid is filled in when absent). */
export type Responder = (review: Obj, path: string) => Obj

export class AdmissionWebhookServer {
  /** The reviews received, each with the request's path and headers (`traceparent` ...). */
  readonly reviews: Array<Obj & { path: string; headers: Record<string, string | string[] | undefined> }> = []
  respond: Responder = () => ({ allowed: true })
  /** How long to wait before answering (to outlast a webhook's timeoutSeconds). */
  delayMs = 0
  /** Replaces the whole answer (to send malformed reviews). */
  rawAnswer?: (review: Obj) => unknown
  /** The HTTP status of raw answers (a webhook that fails with an error status). */
  rawStatus = 200

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly caPem: string,
  ) {}

  url(path = '/'): string {
    return `https://127.0.0.1:${this.port}${path}`
  }

  get caBundle(): string {
    return Buffer.from(this.caPem).toString('base64')
  }

  static async start(): Promise<AdmissionWebhookServer> {
    const now = Date.now()
    const notBefore = new Date(now - 3_600_000)
    const notAfter = new Date(now + 86_400_000)
    const caKey = await generateKey('ecdsa')
    const caPem = await createCaCertificate({ key: caKey, commonName: 'webhook-ca', notBefore, notAfter })
    const key = await generateKey('ecdsa')
    const certPem = await createLeafCertificate({
      ca: { certPem: caPem, privateKey: caKey.privateKey },
      publicKey: key.publicKey,
      commonName: 'webhook',
      dns: ['localhost', 'webhook.default.svc'],
      ips: ['127.0.0.1'],
      notBefore,
      notAfter,
    })
    let self: AdmissionWebhookServer | undefined
    const server = createServer({ cert: certPem, key: privateKeyPem(key.privateKey) }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj
        const path = req.url ?? '/'
        self!.reviews.push({ ...review, path, headers: req.headers })
        res.setHeader('content-type', 'application/json')
        if (self!.rawAnswer) {
          res.statusCode = self!.rawStatus
          res.end(JSON.stringify(self!.rawAnswer(review)))
          return
        }
        const response = { uid: review.request?.uid, ...self!.respond(review, path) }
        const answer = () => {
          if (!res.destroyed) res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }))
        }
        if (self!.delayMs > 0) setTimeout(answer, self!.delayMs)
        else answer()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    self = new AdmissionWebhookServer(server, (server.address() as AddressInfo).port, caPem)
    return self
  }

  /** A JSON patch as a response's base64 `patch`. */
  static patch(operations: Obj[]): { patch: string; patchType: 'JSONPatch' } {
    return { patch: Buffer.from(JSON.stringify(operations)).toString('base64'), patchType: 'JSONPatch' }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
