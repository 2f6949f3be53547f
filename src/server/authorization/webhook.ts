/**
 * The Webhook mode (the reference's plugin/pkg/authorizer/webhook): each question is POSTed as
 * a SubjectAccessReview (authorization.k8s.io v1 or v1beta1, per
 * --authorization-webhook-version) to the server named by a kubeconfig file; its
 * `status.allowed` allows, `status.denied` denies, anything else has no opinion. Answers are
 * cached by question, allows for the authorized TTL and the rest for the unauthorized TTL. A
 * webhook that cannot be reached has no opinion and reports the error (the request is then a
 * 500 unless a later mode allows it).
 */
import fs from 'node:fs'
import https from 'node:https'
import http from 'node:http'
import yaml from 'js-yaml'
import type { Attributes, Authorizer, Decision, RuleResolver, Rules } from './authorizer.js'

export class WebhookConfigError extends Error {}

export interface WebhookOptions {
  kubeconfigFile: string
  version: 'v1' | 'v1beta1'
  authorizedTtlMs: number
  unauthorizedTtlMs: number
  timeoutMs?: number
  /** What a failed call decides (the structured configuration's failurePolicy; the flags: no opinion). */
  decisionOnError?: 'noOpinion' | 'deny'
  now?: () => number
}

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
    doc = obj(yaml.load(fs.readFileSync(file, 'utf8')))
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
    const review = reviewFor(a, this.options.version)
    const key = JSON.stringify(review.spec)
    const cached = this.cache.get(key)
    if (cached && cached.expires > this.now()) return cached.decision
    let status: Obj
    try {
      status = obj(obj(await this.post(review)).status)
    } catch (err) {
      return { decision: this.options.decisionOnError ?? 'noOpinion', error: (err as Error).message }
    }
    const reason = typeof status.reason === 'string' && status.reason ? { reason: status.reason } : {}
    const decision: Decision = status.allowed === true ? { decision: 'allow', ...reason } : status.denied === true ? { decision: 'deny', ...reason } : { decision: 'noOpinion', ...reason }
    const ttl = decision.decision === 'allow' ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs
    if (ttl > 0) this.cache.set(key, { decision, expires: this.now() + ttl })
    return decision
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
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (d: Buffer) => chunks.push(d))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return reject(new Error(`an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`))
            try {
              resolve(JSON.parse(text))
            } catch (err) {
              reject(err as Error)
            }
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error(`Post "${c.url.href}": context deadline exceeded`)))
      req.on('error', reject)
      req.end(body)
    })
  }
}
