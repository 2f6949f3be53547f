import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { type MatchCondition, compileMatchCondition } from '../../../src/server/authorization/match-conditions.js'
import { WebhookAuthorizer, WebhookConfigError, reviewFor } from '../../../src/server/authorization/webhook.js'

function condition(expression: string): MatchCondition {
  const compiled = compileMatchCondition(expression)
  if ('error' in compiled) throw new Error(compiled.error)
  return compiled
}

describe('Webhook authorizer', () => {
  let server: Server
  let dir: string
  let calls = 0
  let answer: Record<string, unknown> = { allowed: true }
  /** How many of the next calls answer with this status before the real answer. */
  let failures: { count: number; status: number; retryAfter?: string } = { count: 0, status: 500 }
  let now = 0
  const attrs = resourceAttributes({ name: 'jane', groups: ['devs'] }, { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' })

  before(async () => {
    server = createServer((req, res) => {
      calls++
      req.resume()
      req.on('end', () => {
        if (failures.count > 0) {
          failures.count--
          res.statusCode = failures.status
          if (failures.retryAfter) res.setHeader('retry-after', failures.retryAfter)
          res.end('transient')
          return
        }
        if (answer.fail) {
          res.statusCode = 500
          res.end('boom')
          return
        }
        res.end(JSON.stringify({ status: answer }))
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-'))
    fs.writeFileSync(
      path.join(dir, 'kc'),
      `clusters: [{name: a, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}/"}}]\nusers: [{name: a, user: {}}]\ncontexts: [{name: a, context: {cluster: a, user: a}}]\ncurrent-context: a\n`,
    )
  })
  after(() => {
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const make = () => new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'kc'), version: 'v1', authorizedTtlMs: 1000, unauthorizedTtlMs: 500, now: () => now })

  it('v1 sends groups, v1beta1 sends them as group', () => {
    assert.deepEqual((reviewFor(attrs, 'v1').spec as Record<string, unknown>).groups, ['devs'])
    assert.deepEqual((reviewFor(attrs, 'v1beta1').spec as Record<string, unknown>).group, ['devs'])
    assert.equal(reviewFor(attrs, 'v1beta1').apiVersion, 'authorization.k8s.io/v1beta1')
  })

  it('allows, denies or has no opinion as answered, and caches by TTL', async () => {
    const webhook = make()
    calls = 0
    answer = { allowed: true }
    assert.equal((await webhook.authorize(attrs)).decision, 'allow')
    assert.equal((await webhook.authorize(attrs)).decision, 'allow')
    assert.equal(calls, 1)
    now += 1001
    answer = { allowed: false, denied: true, reason: 'no' }
    assert.deepEqual(await webhook.authorize(attrs), { decision: 'deny', reason: 'no' })
    assert.equal(calls, 2)
    now += 501
    answer = { allowed: false }
    assert.deepEqual(await webhook.authorize(attrs), { decision: 'noOpinion' })
    assert.equal(calls, 3)
  })

  it('a failing webhook has no opinion and reports the error, after the retries', async () => {
    answer = { fail: true }
    now += 10_000
    calls = 0
    const webhook = new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'kc'), version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, initialBackoffMs: 1 })
    const result = await webhook.authorize(attrs)
    assert.equal(result.decision, 'noOpinion')
    assert.match(result.error!, /boom/)
    assert.equal(calls, 5, 'five attempts, as the reference backoff')
  })

  it('retries 429, 500, 504 and Retry-After answers, not other errors', async () => {
    const webhook = new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'kc'), version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, initialBackoffMs: 1 })
    answer = { allowed: true }
    for (const [status, retryAfter] of [[500], [504], [429], [503, '1']] as Array<[number, string?]>) {
      calls = 0
      failures = { count: 2, status, ...(retryAfter ? { retryAfter } : {}) }
      assert.equal((await webhook.authorize(attrs)).decision, 'allow', `status ${status}`)
      assert.equal(calls, 3, `status ${status}`)
    }
    calls = 0
    failures = { count: 1, status: 403 }
    const refused = await webhook.authorize(attrs)
    assert.equal(refused.decision, 'noOpinion')
    assert.match(refused.error!, /transient/)
    assert.equal(calls, 1)
    failures = { count: 0, status: 500 }
  })

  it('the failure policy Deny denies when the webhook fails', async () => {
    answer = { fail: true }
    const webhook = new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'kc'), version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0, initialBackoffMs: 1, decisionOnError: 'deny' })
    assert.equal((await webhook.authorize(attrs)).decision, 'deny')
  })

  describe('match conditions', () => {
    const withConditions = (expressions: string[], decisionOnError: 'deny' | 'noOpinion' = 'noOpinion') =>
      new WebhookAuthorizer({
        kubeconfigFile: path.join(dir, 'kc'),
        version: 'v1',
        authorizedTtlMs: 0,
        unauthorizedTtlMs: 0,
        decisionOnError,
        matchConditions: expressions.map(condition),
      })

    it('all true: the webhook is asked', async () => {
      answer = { allowed: true }
      calls = 0
      const webhook = withConditions(["request.user == 'jane'", "'devs' in request.groups", "request.resourceAttributes.namespace == 'ns'"])
      assert.equal((await webhook.authorize(attrs)).decision, 'allow')
      assert.equal(calls, 1)
    })

    it('one false: no opinion and the webhook is not asked', async () => {
      answer = { allowed: true }
      calls = 0
      const webhook = withConditions(["request.user == 'jane'", "request.resourceAttributes.resource != 'pods'"])
      assert.deepEqual(await webhook.authorize(attrs), { decision: 'noOpinion' })
      assert.equal(calls, 0)
    })

    it('an error and no false: the failure policy decides, the webhook is not asked', async () => {
      answer = { allowed: true }
      calls = 0
      const nonResource = { ...attrs, resourceRequest: false, path: '/healthz', verb: 'get' }
      const expression = "request.resourceAttributes.namespace == 'ns'"
      const denied = await withConditions([expression], 'deny').authorize(nonResource)
      assert.equal(denied.decision, 'deny')
      assert.match(denied.error!, /^cel evaluation error: expression 'request\.resourceAttributes\.namespace == 'ns'' resulted in error: /)
      assert.equal((await withConditions([expression]).authorize(nonResource)).decision, 'noOpinion')
      // A false condition wins over another's error.
      assert.deepEqual(await withConditions([expression, "request.nonResourceAttributes.path != '/healthz'"], 'deny').authorize(nonResource), { decision: 'noOpinion' })
      assert.equal(calls, 0)
    })
  })

  it('a kubeconfig without a server is a configuration error', () => {
    fs.writeFileSync(path.join(dir, 'bad'), 'clusters: []\n')
    assert.throws(() => new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'bad'), version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0 }), WebhookConfigError)
  })
})
