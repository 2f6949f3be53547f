/**
 * The token webhook (`--authentication-token-webhook-config-file`, reference:
 * apiserver/plugin/pkg/authenticator/token/webhook): each bearer token is POSTed as a
 * TokenReview (authentication.k8s.io v1 or v1beta1, `--authentication-token-webhook-version`)
 * to the server of the kubeconfig-format file, with that file's credentials; the answer's user
 * is the request's. Answers are cached for `--authentication-token-webhook-cache-ttl`. A
 * failure (unreachable, 5xx after the retries, a malformed answer, `status.error`) refuses the
 * token, so the request gets 401.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'

import { ClientConfigError } from '../../core/client/errors.js'
import { type Connection, resolveConnection } from '../../core/client/connection.js'
import type { UserInfo } from '../http/types.js'
import { AuthenticationError } from './authenticator.js'
import { type TokenAnswer, TokenCache } from './token-cache.js'
import { egressAgent } from '../egress/agent.js'

export const WEBHOOK_VERSIONS = ['v1', 'v1beta1']
const REQUEST_TIMEOUT_MS = 30_000
/** webhook.DefaultRetryBackoff: 500 ms, ×1.5, 20 % jitter, 5 attempts. */
const BACKOFF = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 }
const MAX_BODY_BYTES = 4 << 20

export class WebhookConfigError extends Error {
  override name = 'WebhookConfigError'
}

/** A refused token: the message is for the log. */
export class WebhookAuthenticationError extends AuthenticationError {}

export interface WebhookOptions {
  configFile: string
  version: string
  cacheTtlMs: number
  /** The server's own audiences (--api-audiences): a review answered without audiences is for these. */
  implicitAudiences: readonly string[]
  log?: { error(message: string): void }
  /** Tests only: the first retry's pause. */
  initialBackoffMs?: number
}

interface ReviewStatus {
  authenticated?: boolean
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }
  audiences?: string[]
  error?: string
}

class RetryableError extends Error {}

function post(connection: Connection, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(connection.server)
    const secure = url.protocol === 'https:'
    const headers: Record<string, string | string[]> = {
      ...connection.headers,
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'user-agent': connection.userAgent,
      'content-length': String(Buffer.byteLength(body)),
    }
    // The reference's token webhook dials on the egress selector's controlplane network.
    const agent = egressAgent('controlplane', secure ? 'https:' : 'http:')
    const options = {
      method: 'POST',
      headers,
      timeout: REQUEST_TIMEOUT_MS,
      ...(agent ? { agent } : {}),
      ...(secure
        ? {
            ca: connection.tls.ca,
            cert: connection.tls.cert,
            key: connection.tls.key,
            rejectUnauthorized: !connection.tls.insecureSkipVerify,
            servername: connection.tls.serverName,
          }
        : {}),
    }
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BODY_BYTES) req.destroy(new Error(`response larger than ${MAX_BODY_BYTES} bytes`))
        else chunks.push(chunk)
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new RetryableError(`Post "${connection.server}": context deadline exceeded`)))
    req.on('error', (err) => reject(err instanceof RetryableError ? err : new RetryableError(`Post "${connection.server}": ${err.message}`)))
    req.end(body)
  })
}

export class WebhookTokenAuthenticator {
  readonly name = 'webhook'
  private readonly connection: Connection
  private readonly cache: TokenCache

  /** Reads the kubeconfig-format file; throws WebhookConfigError naming it. */
  constructor(private readonly options: WebhookOptions) {
    if (!WEBHOOK_VERSIONS.includes(options.version)) {
      throw new WebhookConfigError(`unsupported authentication webhook version ${JSON.stringify(options.version)}, supported versions are "v1", "v1beta1"`)
    }
    try {
      // Only the file counts: not KUBECONFIG, not ~/.kube/config.
      this.connection = resolveConnection({ kubeconfig: options.configFile }, {})
    } catch (err) {
      if (err instanceof ClientConfigError) throw new WebhookConfigError(`--authentication-token-webhook-config-file ${options.configFile}: ${err.message}`)
      throw err
    }
    this.cache = new TokenCache((token, audiences) => this.review(token, audiences), options.cacheTtlMs)
  }

  /** How many answers came from the cache and how many from the webhook. */
  get cacheStats(): { hits: number; misses: number } {
    return { hits: this.cache.hits, misses: this.cache.misses }
  }

  async authenticateToken(token: string, audiences: readonly string[] = []): Promise<TokenAnswer | null> {
    return this.cache.authenticate(token, audiences)
  }

  private async review(token: string, wantAudiences: readonly string[]): Promise<TokenAnswer | null> {
    const apiVersion = `authentication.k8s.io/${this.options.version}`
    const spec: Record<string, unknown> = { token }
    if (wantAudiences.length > 0) spec.audiences = [...wantAudiences]
    const body = JSON.stringify({ apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec, status: { user: {} } })
    let status: ReviewStatus
    try {
      status = await this.withRetries(body)
    } catch (err) {
      this.options.log?.error(`Failed to make webhook authenticator request: ${(err as Error).message}`)
      throw new WebhookAuthenticationError((err as Error).message)
    }

    let audiences: string[] | undefined
    if (wantAudiences.length > 0) {
      const got = status.audiences && status.audiences.length > 0 ? status.audiences : this.options.implicitAudiences
      audiences = wantAudiences.filter((audience) => got.includes(audience))
      if (audiences.length === 0) return null
    }
    if (!status.authenticated) {
      if (status.error) throw new WebhookAuthenticationError(status.error)
      return null
    }
    const reviewed = status.user ?? {}
    const user: UserInfo = { name: reviewed.username ?? '', groups: [...(reviewed.groups ?? [])] }
    if (reviewed.uid) user.uid = reviewed.uid
    if (reviewed.extra) user.extra = Object.fromEntries(Object.entries(reviewed.extra).map(([k, v]) => [k, [...(v ?? [])]]))
    return audiences ? { user, audiences } : { user }
  }

  /** webhook.WithExponentialBackoff with DefaultShouldRetry: connection errors, 429 and 5xx are tried again. */
  private async withRetries(body: string): Promise<ReviewStatus> {
    let delay = this.options.initialBackoffMs ?? BACKOFF.initialMs
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(body)
      } catch (err) {
        if (!(err instanceof RetryableError) || attempt >= BACKOFF.steps) throw err
      }
      await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * BACKOFF.jitter)))
      delay *= BACKOFF.factor
    }
  }

  private async once(body: string): Promise<ReviewStatus> {
    const { status, text } = await post(this.connection, body)
    if (status === 429 || status >= 500) throw new RetryableError(`the server responded with status ${status}: ${text.slice(0, 200)}`)
    if (status < 200 || status > 299) throw new Error(`the server responded with status ${status}: ${text.slice(0, 200)}`)
    let review: { kind?: unknown; status?: ReviewStatus }
    try {
      review = JSON.parse(text)
    } catch (err) {
      throw new Error(`couldn't decode the webhook's answer: ${(err as Error).message}`)
    }
    if (typeof review !== 'object' || review === null) throw new Error("couldn't decode the webhook's answer: not an object")
    return review.status ?? {}
  }
}
