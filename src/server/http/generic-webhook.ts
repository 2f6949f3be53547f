/**
 * A webhook configured by a kubeconfig file (the reference's k8s.io/apiserver/pkg/util/webhook
 * GenericWebhook over client-go's REST client), shared by ImagePolicyWebhook and the audit
 * webhook backend: the server and credentials of the kubeconfig file (its current context,
 * else the unnamed cluster and user, as client-go reads it), one JSON POST of the body to the
 * server's URL, and the retries of WithExponentialBackoff (the configured first pause, ×1.5,
 * 20 % jitter, 5 attempts) on the errors its ShouldRetry picks: by default what
 * DefaultShouldRetry calls transient, a reset connection, 429, 500 and other 5xx but 503, 504,
 * or an answer with Retry-After. Failures are client-go's texts: `Post "<url>": <why>`, or the
 * Status the answer's code stands for.
 */
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { ClientConfigError } from '../../core/client/errors.js'
import { type Connection, NO_SERVER_MESSAGE, resolveConnection } from '../../core/client/connection.js'
import { egressAgent } from '../egress/agent.js'
import { traceContextHeaders } from '../tracing/spans.js'

/** client-go's ErrEmptyConfig, as ConfirmUsable reports it. */
const EMPTY_CONFIG = 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable'
const ATTEMPTS = 5
const FACTOR = 1.5
const JITTER = 0.2
const TIMEOUT_MS = 30_000
const MAX_BODY_BYTES = 4 << 20

/** A failed call, with the Status reason client-go gives it (Forbidden is kept as it is). */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly reason: string = 'InternalError',
    readonly code: number = 500,
    readonly retry = false,
  ) {
    super(message)
  }
}

/** webhook.LoadKubeconfig: the connection the file describes; throws client-go's text. */
export function loadKubeconfig(file: string): Connection {
  // An empty path would read KUBECONFIG or the home directory's file; a server has neither.
  if (file === '') throw new Error(EMPTY_CONFIG)
  try {
    return resolveConnection({ kubeconfig: file }, {})
  } catch (err) {
    if (err instanceof ClientConfigError && err.message === NO_SERVER_MESSAGE) throw new Error(EMPTY_CONFIG)
    throw err
  }
}

/** NewGenericWebhookError's messages by code, for an answer that is no Status (client-go's NewGenericServerResponse). */
function genericServerError(code: number, text: string, retryAfter: boolean): WebhookCallError {
  const message = text === '' ? 'unknown' : text
  const retry = retryAfter || code === 429 || code === 504 || (code >= 500 && code !== 503)
  switch (code) {
    case 400:
      return new WebhookCallError('the server rejected our request for an unknown reason', 'BadRequest', code, retryAfter)
    case 401:
      return new WebhookCallError('the server has asked for the client to provide credentials', 'Unauthorized', code, retryAfter)
    case 403:
      return new WebhookCallError(message, 'Forbidden', code, retryAfter)
    case 404:
      return new WebhookCallError('the server could not find the requested resource', 'NotFound', code, retryAfter)
    case 405:
      return new WebhookCallError('the server does not allow this method on the requested resource', 'MethodNotAllowed', code, retryAfter)
    case 409:
      return new WebhookCallError('the server reported a conflict', 'AlreadyExists', code, retryAfter)
    case 422:
      return new WebhookCallError('the server rejected our request due to an error in our request', 'Invalid', code, retryAfter)
    case 429:
      return new WebhookCallError('the server has received too many requests and has asked us to try again later', 'TooManyRequests', code, retry)
    case 503:
      return new WebhookCallError('the server is currently unable to handle the request', 'ServiceUnavailable', code, retry)
    case 504:
      return new WebhookCallError('the server was unable to return a response in the time allotted, but may still be processing the request', 'Timeout', code, retry)
    default:
      if (code >= 500) return new WebhookCallError(`an error on the server (${JSON.stringify(message)}) has prevented the request from succeeding`, 'InternalError', code, retry)
      return new WebhookCallError(`the server responded with the status code ${code} but did not return more information`, 'Unknown', code, retryAfter)
  }
}

/** A failed answer: its Status when it is one, else the generic words (Result.Error()). */
function answerError(code: number, text: string, contentType: string, retryAfter: boolean): WebhookCallError {
  try {
    const status = JSON.parse(text) as { kind?: string; status?: string; message?: string; reason?: string; code?: number }
    if (status.kind === 'Status' && status.status === 'Failure') {
      const reason = status.reason ?? ''
      const statusCode = status.code ?? code
      const retry = retryAfter || reason === 'InternalError' || reason === 'Timeout' || reason === 'TooManyRequests'
      return new WebhookCallError(status.message ?? '', reason, statusCode, retry)
    }
  } catch {
    // not JSON: the generic words
  }
  const isText = contentType === '' || /^text\//i.test(contentType)
  return genericServerError(code, isText ? text.slice(0, 1024).trim() : '', retryAfter)
}

/** A transport failure in Go's words. */
function transportError(err: NodeJS.ErrnoException, url: URL): WebhookCallError {
  const address = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`
  const unknownAuthority = ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']
  let why = err.message
  if (err.code === 'ECONNREFUSED') why = `dial tcp ${address}: connect: connection refused`
  else if (err.code && unknownAuthority.includes(err.code)) why = 'tls: failed to verify certificate: x509: certificate signed by unknown authority'
  else if (err.code === 'ECONNRESET') why = `read tcp ${address}: read: connection reset by peer`
  return new WebhookCallError(`Post ${JSON.stringify(url.href)}: ${why}`, 'InternalError', 500, err.code === 'ECONNRESET')
}

/** DefaultShouldRetry: the failures client-go calls transient (WebhookCallError.retry). */
export function defaultShouldRetry(err: unknown): boolean {
  return err instanceof WebhookCallError && err.retry
}

export class GenericWebhook {
  private readonly url: URL

  constructor(
    private readonly connection: Connection,
    private readonly initialBackoffMs: number,
    /** Whether a failed attempt is tried again (the reference's GenericWebhook.ShouldRetry). */
    private readonly shouldRetry: (err: unknown) => boolean = defaultShouldRetry,
  ) {
    // client-go's request path: the server's path joined and cleaned (no trailing slash), `/` without one.
    this.url = new URL(connection.server)
  }

  /** POSTs the body, tried again as shouldRetry says; resolves to the decoded answer. */
  async post(body: unknown): Promise<unknown> {
    const text = await this.send(body)
    try {
      return JSON.parse(text)
    } catch (err) {
      throw new WebhookCallError((err as Error).message)
    }
  }

  /**
   * POSTs the body, tried again as shouldRetry says (WithExponentialBackoff: the last
   * attempt's error when none succeeds); resolves to the answer's text, which a caller that
   * needs only the outcome (Result.Error()) ignores.
   */
  async send(body: unknown): Promise<string> {
    const json = JSON.stringify(body)
    let pause = this.initialBackoffMs
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.postOnce(json)
      } catch (err) {
        if (!this.shouldRetry(err) || attempt >= ATTEMPTS) throw err
      }
      await new Promise((resolve) => setTimeout(resolve, pause * (1 + Math.random() * JITTER)))
      pause *= FACTOR
    }
  }

  private postOnce(body: string): Promise<string> {
    const { url, connection: c } = this
    const secure = url.protocol === 'https:'
    return new Promise((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'POST',
          headers: { ...c.headers, 'content-type': 'application/json', accept: 'application/json, */*', 'user-agent': c.userAgent, 'content-length': String(Buffer.byteLength(body)), ...traceContextHeaders() },
          ...(secure ? { ca: c.tls.ca, cert: c.tls.cert, key: c.tls.key, rejectUnauthorized: !c.tls.insecureSkipVerify, ...(c.tls.serverName ? { servername: c.tls.serverName } : {}) } : {}),
          // The reference's audit and authentication webhooks dial on the controlplane network.
          agent: egressAgent('controlplane', secure ? 'https:' : 'http:') ?? false,
        },
        (res) => {
          const chunks: Buffer[] = []
          let size = 0
          res.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size <= MAX_BODY_BYTES) chunks.push(chunk)
          })
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            const code = res.statusCode ?? 0
            // client-go takes 200 to 206 as success.
            if (code < 200 || code > 206) return reject(answerError(code, text, String(res.headers['content-type'] ?? ''), Number(res.headers['retry-after']) > 0))
            resolve(text)
          })
          res.on('error', (err: NodeJS.ErrnoException) => reject(transportError(err, url)))
        },
      )
      const deadline = setTimeout(() => req.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT' })), TIMEOUT_MS)
      req.on('close', () => clearTimeout(deadline))
      req.on('error', (err: NodeJS.ErrnoException) => reject(transportError(err, url)))
      req.end(body)
    })
  }
}
