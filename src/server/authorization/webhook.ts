/**
 * The Webhook mode (the reference's plugin/pkg/authorizer/webhook): each question is POSTed as
 * a SubjectAccessReview (authorization.k8s.io v1 or v1beta1, per
 * --authorization-webhook-version) to the server named by a kubeconfig file; its
 * `status.allowed` allows, `status.denied` denies, anything else has no opinion. Answers are
 * cached by question, allows for the authorized TTL and the rest for the unauthorized TTL.
 * Transient failures (a reset connection, 429, 500, 504, an answer with Retry-After) are tried
 * again with the reference's backoff (500 ms, ×1.5, 20 % jitter, 5 attempts). A webhook that
 * still fails decides by its failure policy (the flags: no opinion) and reports the error.
 * In the structured configuration a webhook may have CEL match conditions: it is asked only
 * when all of them are true.
 */
import fs from 'node:fs'
import https from 'node:https'
import http from 'node:http'
import { jsYaml } from '../../core/util/yaml.js'
import { egressAgent } from '../egress/agent.js'
import type { Attributes, Authorizer, Decision, RuleResolver, Rules } from './authorizer.js'
import { type MatchCondition, evaluateMatchConditions } from './match-conditions.js'

export class WebhookConfigError extends Error {}

export interface WebhookOptions {
  kubeconfigFile: string
  version: 'v1' | 'v1beta1'
  authorizedTtlMs: number
  unauthorizedTtlMs: number
  timeoutMs?: number
  /** What a failed call decides (the structured configuration's failurePolicy; the flags: no opinion). */
  decisionOnError?: 'noOpinion' | 'deny'
  /** Compiled CEL conditions (structured configuration only): all true for the webhook to be asked. */
  matchConditions?: readonly MatchCondition[]
  now?: () => number
  /** Tests only: the first retry's pause. */
  initialBackoffMs?: number
}

/** webhook.DefaultRetryBackoffWithInitialDelay(500ms): ×1.5, 20 % jitter, 5 attempts. */
const BACKOFF = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 }
/** The reference does not cache answers to questions with more requester-controlled bytes than this. */
const MAX_CACHED_ATTRIBUTE_BYTES = 10_000

/** A failure that webhook.DefaultShouldRetry would try again. */
class RetryableError extends Error {}

interface Connection {
  url: URL
  ca?: Buffer
  cert?: Buffer
  key?: Buffer
  token?: string
  insecure: boolean
}

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : [])

/** The cluster and user of the kubeconfig's current context (or its first ones). */
export function loadWebhookKubeconfig(file: string): Connection {
  let doc: Obj
  try {
    doc = obj(jsYaml().load(fs.readFileSync(file, 'utf8')))
  } catch (err) {
    throw new WebhookConfigError(`invalid configuration: ${file}: ${(err as Error).message}`)
  }
  const current = list(doc.contexts).find((c) => c.name === doc['current-context']) ?? list(doc.contexts)[0]
  const context = obj(current?.context)
  const cluster = obj((list(doc.clusters).find((c) => c.name === context.cluster) ?? list(doc.clusters)[0])?.cluster)
  const user = obj((list(doc.users).find((u) => u.name === context.user) ?? list(doc.users)[0])?.user)
  if (typeof cluster.server !== 'string' || cluster.server === '') throw new WebhookConfigError(`invalid configuration: no server found for cluster in ${file}`)
  const dir = file.replace(/[^/]*$/, '')
  const bytes = (data: unknown, path: unknown): Buffer | undefined => {
    if (typeof data === 'string' && data) return Buffer.from(data, 'base64')
    if (typeof path === 'string' && path) return fs.readFileSync(path.startsWith('/') ? path : dir + path)
    return undefined
  }
  try {
    return {
      url: new URL(cluster.server),
      ca: bytes(cluster['certificate-authority-data'], cluster['certificate-authority']),
      cert: bytes(user['client-certificate-data'], user['client-certificate']),
      key: bytes(user['client-key-data'], user['client-key']),
      ...(typeof user.token === 'string' ? { token: user.token } : {}),
      insecure: cluster['insecure-skip-tls-verify'] === true,
    }
  } catch (err) {
    throw new WebhookConfigError(`invalid configuration: ${file}: ${(err as Error).message}`)
  }
}

/** The SubjectAccessReview for the attributes, in the webhook's version. */
export function reviewFor(a: Attributes, version: 'v1' | 'v1beta1'): Obj {
  const spec: Obj = {
    ...(a.resourceRequest
      ? { resourceAttributes: { namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name } }
      : { nonResourceAttributes: { path: a.path, verb: a.verb } }),
    user: a.user.name,
    // v1beta1 names the groups field `group`.
    [version === 'v1' ? 'groups' : 'group']: a.user.groups,
    ...(a.user.extra ? { extra: a.user.extra } : {}),
    ...(a.user.uid ? { uid: a.user.uid } : {}),
  }
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } }
}

export class WebhookAuthorizer implements Authorizer, RuleResolver {
  private readonly cache = new Map<string, { decision: Decision; expires: number }>()
  private readonly connection: Connection
  private readonly now: () => number

  constructor(private readonly options: WebhookOptions) {
    this.connection = loadWebhookKubeconfig(options.kubeconfigFile)
    this.now = options.now ?? Date.now
  }

  async authorize(a: Attributes): Promise<Decision> {
    const onError = this.options.decisionOnError ?? 'noOpinion'
    if (this.options.matchConditions && this.options.matchConditions.length > 0) {
      const match = evaluateMatchConditions(this.options.matchConditions, a)
      // An error with no false condition: the failure policy decides; a false one: not asked.
      if (match.error) return { decision: onError, error: match.error }
      if (!match.matches) return { decision: 'noOpinion' }
    }
    const review = reviewFor(a, this.options.version)
    const key = JSON.stringify(review.spec)
    const cached = this.cache.get(key)
    if (cached && cached.expires > this.now()) return cached.decision
    let status: Obj
    try {
      status = obj(obj(await this.postWithRetries(review)).status)
    } catch (err) {
      return { decision: onError, error: (err as Error).message }
    }
    const reason = typeof status.reason === 'string' && status.reason ? { reason: status.reason } : {}
    let decision: Decision
    if (status.allowed === true && status.denied === true) {
      decision = { decision: 'deny', ...reason, error: 'webhook subject access review returned both allow and deny response' }
    } else {
      decision = status.allowed === true ? { decision: 'allow', ...reason } : status.denied === true ? { decision: 'deny', ...reason } : { decision: 'noOpinion', ...reason }
    }
    const ttl = decision.decision === 'allow' ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs
    if (ttl > 0 && controlledBytes(a) < MAX_CACHED_ATTRIBUTE_BYTES) this.cache.set(key, { decision, expires: this.now() + ttl })
    return decision
  }

  /** webhook.WithExponentialBackoff with DefaultShouldRetry. */
  private async postWithRetries(review: Obj): Promise<unknown> {
    let delay = this.options.initialBackoffMs ?? BACKOFF.initialMs
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.post(review)
      } catch (err) {
        if (!(err instanceof RetryableError) || attempt >= BACKOFF.steps) throw err
      }
      await new Promise((resolve) => setTimeout(resolve, delay * (1 + Math.random() * BACKOFF.jitter)))
      delay *= BACKOFF.factor
    }
  }

  /** As the reference: a webhook cannot list rules. */
  rulesFor(): Rules {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, errors: [] }
  }

  private post(review: Obj): Promise<unknown> {
    const c = this.connection
    const body = Buffer.from(JSON.stringify(review))
    const transport = c.url.protocol === 'http:' ? http : https
    return new Promise((resolve, reject) => {
      const req = transport.request(
        c.url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': body.length, ...(c.token ? { authorization: `Bearer ${c.token}` } : {}) },
          ...(c.ca ? { ca: c.ca } : {}),
          ...(c.cert ? { cert: c.cert } : {}),
          ...(c.key ? { key: c.key } : {}),
          rejectUnauthorized: !c.insecure,
          timeout: this.options.timeoutMs ?? 30_000,
          // The reference's authorization webhook dials on the egress selector's controlplane network.
          agent: egressAgent('controlplane', c.url.protocol === 'http:' ? 'http:' : 'https:') ?? false,
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (d: Buffer) => chunks.push(d))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            const code = res.statusCode ?? 0
            if (code < 200 || code >= 300) {
              const transient = code === 429 || code === 500 || code === 504 || Number(res.headers['retry-after']) > 0
              const message = `an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`
              return reject(transient ? new RetryableError(message) : new Error(message))
            }
            try {
              resolve(JSON.parse(text))
            } catch (err) {
              reject(err as Error)
            }
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error(`Post "${c.url.href}": context deadline exceeded`)))
      req.on('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ECONNRESET' ? new RetryableError(`Post "${c.url.href}": ${err.message}`) : err))
      req.end(body)
    })
  }
}

/** The bytes of the question the requester chooses (the reference's shouldCache). */
function controlledBytes(a: Attributes): number {
  return a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length
}
