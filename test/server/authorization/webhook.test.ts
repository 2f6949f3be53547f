import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { resourceAttributes } from '../../../src/server/authorization/authorizer.js'
import { WebhookAuthorizer, WebhookConfigError, reviewFor } from '../../../src/server/authorization/webhook.js'

describe('Webhook authorizer', () => {
  let server: Server
  let dir: string
  let calls = 0
  let answer: Record<string, unknown> = { allowed: true }
  let now = 0
  const attrs = resourceAttributes({ name: 'jane', groups: ['devs'] }, { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' })

  before(async () => {
    server = createServer((req, res) => {
      calls++
      req.resume()
      req.on('end', () => {
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

  it('a failing webhook has no opinion and reports the error', async () => {
    answer = { fail: true }
    now += 10_000
    const result = await make().authorize(attrs)
    assert.equal(result.decision, 'noOpinion')
    assert.match(result.error!, /boom/)
  })

  it('a kubeconfig without a server is a configuration error', () => {
    fs.writeFileSync(path.join(dir, 'bad'), 'clusters: []\n')
    assert.throws(() => new WebhookAuthorizer({ kubeconfigFile: path.join(dir, 'bad'), version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0 }), WebhookConfigError)
  })
})
