/**
 * A test token webhook: an HTTPS server on 127.0.0.1 that answers TokenReviews from a table
 * of tokens, requires the bearer credential its kubeconfig file gives, counts the reviews it
 * receives, and can be told to fail. `kubeconfig(dir)` writes the file the server reads.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

import { type TestTls, testTls } from './oidc-issuer.js'

export interface ReviewedUser {
  username: string
  uid?: string
  groups?: string[]
  extra?: Record<string, string[]>
}

export const WEBHOOK_CREDENTIAL = 'webhook-caller-secret'

export class TokenWebhook {
  /** TokenReviews received (their bodies). */
  readonly reviews: Array<{ apiVersion: string; spec: { token: string; audiences?: string[] } }> = []
  /** Tokens the webhook accepts, and who they are. */
  readonly users = new Map<string, ReviewedUser>()
  /** Answer every review with this HTTP status instead (e.g. 500). */
  failWith: number | undefined
  /** Refuse unknown tokens with this `status.error`. */
  errorText: string | undefined

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly tls: TestTls,
  ) {}

  static async start(tls?: TestTls): Promise<TokenWebhook> {
    const material = tls ?? (await testTls('test-webhook'))
    let webhook: TokenWebhook | undefined
    const server = createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const self = webhook!
        res.setHeader('content-type', 'application/json')
        if (req.headers.authorization !== `Bearer ${WEBHOOK_CREDENTIAL}`) {
          res.statusCode = 401
          res.end('{"message":"who are you?"}')
          return
        }
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        self.reviews.push(review)
        if (self.failWith) {
          res.statusCode = self.failWith
          res.end('{"message":"failing on purpose"}')
          return
        }
        const user = self.users.get(review.spec?.token)
        const status = user ? { authenticated: true, user } : { authenticated: false, ...(self.errorText ? { error: self.errorText } : {}) }
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    webhook = new TokenWebhook(server, `https://127.0.0.1:${port}/authenticate`, material)
    return webhook
  }

  /** Writes the kubeconfig-format file for --authentication-token-webhook-config-file; returns its path. */
  kubeconfig(dir: string, credential = WEBHOOK_CREDENTIAL): string {
    const file = join(dir, 'token-webhook.kubeconfig')
    const ca = Buffer.from(this.tls.caPem).toString('base64')
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: webhook',
        '  cluster:',
        `    server: ${this.url}`,
        `    certificate-authority-data: ${ca}`,
        'users:',
        '- name: apiserver',
        '  user:',
        `    token: ${credential}`,
        'contexts:',
        '- name: webhook',
        '  context: {cluster: webhook, user: apiserver}',
        'current-context: webhook',
        '',
      ].join('\n'),
    )
    return file
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }
}
