/**
 * A test conversion webhook: an HTTPS server on 127.0.0.1 (its certificate names 127.0.0.1,
 * localhost and `converter.default.svc`) that converts CronTabs between v1 (`spec.cronSpec`)
 * and v2 (`spec.schedule`), records the ConversionReviews it receives, and can be told to
 * answer wrongly. Stopped with `close()`.
 */
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'

import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../../src/server/tls/generate.js'

type Obj = Record<string, any>

export type Misbehaviour = 'wrong-uid' | 'failure' | 'too-few' | 'wrong-version' | 'http-500' | undefined

export class ConversionWebhook {
  readonly reviews: Obj[] = []
  misbehave: Misbehaviour

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly caPem: string,
  ) {}

  get url(): string {
    return `https://127.0.0.1:${this.port}/convert`
  }

  get caBundle(): string {
    return Buffer.from(this.caPem).toString('base64')
  }

  static async start(): Promise<ConversionWebhook> {
    const now = Date.now()
    const notBefore = new Date(now - 3_600_000)
    const notAfter = new Date(now + 86_400_000)
    const caKey = await generateKey('ecdsa')
    const caPem = await createCaCertificate({ key: caKey, commonName: 'converter-ca', notBefore, notAfter })
    const key = await generateKey('ecdsa')
    const certPem = await createLeafCertificate({
      ca: { certPem: caPem, privateKey: caKey.privateKey },
      publicKey: key.publicKey,
      commonName: 'converter',
      dns: ['localhost', 'converter.default.svc'],
      ips: ['127.0.0.1'],
      notBefore,
      notAfter,
    })
    let self: ConversionWebhook | undefined
    const server = createServer({ cert: certPem, key: privateKeyPem(key.privateKey) }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj
        self!.reviews.push({ ...review, path: req.url })
        res.setHeader('content-type', 'application/json')
        if (self!.misbehave === 'http-500') {
          res.statusCode = 500
          res.end('oops')
          return
        }
        res.end(JSON.stringify(self!.answer(review)))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    self = new ConversionWebhook(server, (server.address() as AddressInfo).port, caPem)
    return self
  }

  private answer(review: Obj): Obj {
    const request = review.request as { uid: string; desiredAPIVersion: string; objects: Obj[] }
    const convertedObjects = request.objects.map((o) => convert(o, request.desiredAPIVersion))
    const response: Obj = { uid: request.uid, result: { status: 'Success' }, convertedObjects }
    if (this.misbehave === 'wrong-uid') response.uid = 'someone-else'
    if (this.misbehave === 'failure') response.result = { status: 'Failure', message: 'cannot convert that' }
    if (this.misbehave === 'too-few') response.convertedObjects = []
    if (this.misbehave === 'wrong-version') response.convertedObjects = convertedObjects.map((o: Obj) => ({ ...o, apiVersion: 'stable.example.com/v9' }))
    return { apiVersion: review.apiVersion, kind: 'ConversionReview', response }
  }

  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

/** v1 keeps the schedule in spec.cronSpec, v2 in spec.schedule; a label says who converted. */
function convert(o: Obj, desired: string): Obj {
  const out = structuredClone(o)
  const spec = (out.spec ?? {}) as Obj
  if (desired.endsWith('/v2') && 'cronSpec' in spec) {
    spec.schedule = spec.cronSpec
    delete spec.cronSpec
  }
  if (desired.endsWith('/v1') && 'schedule' in spec) {
    spec.cronSpec = spec.schedule
    delete spec.schedule
  }
  out.spec = spec
  out.apiVersion = desired
  out.metadata = { ...out.metadata, labels: { ...(out.metadata?.labels ?? {}), converted: 'yes' } }
  return out
}
