/**
 * The token webhook against a real HTTPS test webhook: TokenReview v1 and v1beta1 with the
 * kubeconfig file's credentials, answers cached for the TTL, failures and denials refused.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, beforeEach, describe, it } from 'mocha'

import { WebhookConfigError, WebhookTokenAuthenticator } from '../../../src/server/authentication/webhook.js'
import { TokenWebhook } from '../../support/token-webhook.js'

describe('server/authentication/webhook', () => {
  let webhook: TokenWebhook
  let dir: string
  let kubeconfig: string

  before(async () => {
    webhook = await TokenWebhook.start()
    dir = mkdtempSync(join(tmpdir(), 'authn-webhook-'))
    kubeconfig = webhook.kubeconfig(dir)
    webhook.users.set('good-token', { username: 'webhook-user', uid: 'u-1', groups: ['team-a'], extra: { 'example.org/scope': ['read'] } })
  })
  after(async () => {
    await webhook.close()
    rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(() => {
    webhook.reviews.length = 0
    webhook.failWith = undefined
    webhook.errorText = undefined
  })

  const authenticator = (options: Partial<ConstructorParameters<typeof WebhookTokenAuthenticator>[0]> = {}) =>
    new WebhookTokenAuthenticator({ configFile: kubeconfig, version: 'v1beta1', cacheTtlMs: 120_000, implicitAudiences: [], initialBackoffMs: 10, ...options })

  it('posts a TokenReview of the configured version and takes the user from the answer', async () => {
    for (const version of ['v1', 'v1beta1']) {
      const answer = await authenticator({ version }).authenticateToken('good-token')
      assert.deepEqual(answer, { user: { name: 'webhook-user', uid: 'u-1', groups: ['team-a'], extra: { 'example.org/scope': ['read'] } } })
      assert.equal(webhook.reviews.at(-1)!.apiVersion, `authentication.k8s.io/${version}`)
      assert.equal(webhook.reviews.at(-1)!.spec.token, 'good-token')
    }
  })

  it('caches answers, accepted and rejected, for the TTL', async () => {
    const cached = authenticator()
    await cached.authenticateToken('good-token')
    await cached.authenticateToken('good-token')
    assert.equal(await cached.authenticateToken('unknown-token'), null)
    assert.equal(await cached.authenticateToken('unknown-token'), null)
    assert.equal(webhook.reviews.length, 2)
    assert.deepEqual(cached.cacheStats, { hits: 2, misses: 2 })
    const uncached = authenticator({ cacheTtlMs: 0 })
    await uncached.authenticateToken('good-token')
    await uncached.authenticateToken('good-token')
    assert.equal(webhook.reviews.length, 4)
  })

  it('asks the webhook again once the TTL has passed', async () => {
    const shortLived = authenticator({ cacheTtlMs: 100 })
    await shortLived.authenticateToken('good-token')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await shortLived.authenticateToken('good-token')
    assert.equal(webhook.reviews.length, 2)
  })

  it('refuses with status.error and does not cache it', async () => {
    webhook.errorText = 'token revoked'
    const cached = authenticator()
    await assert.rejects(cached.authenticateToken('revoked-token'), { message: 'token revoked' })
    await assert.rejects(cached.authenticateToken('revoked-token'), { message: 'token revoked' })
    assert.equal(webhook.reviews.length, 2)
  })

  it('retries a failing webhook, then refuses', async () => {
    webhook.failWith = 500
    await assert.rejects(authenticator().authenticateToken('good-token'), { message: /^the server responded with status 500/ })
    assert.equal(webhook.reviews.length, 5, 'five attempts, as the reference')
    webhook.failWith = 400
    webhook.reviews.length = 0
    await assert.rejects(authenticator().authenticateToken('good-token'), { message: /^the server responded with status 400/ })
    assert.equal(webhook.reviews.length, 1, 'no retry for a 4xx')
  })

  it('sends the kubeconfig credentials: with other credentials the webhook refuses', async () => {
    const wrong = webhook.kubeconfig(join(dir), 'wrong')
    await assert.rejects(authenticator({ configFile: wrong }).authenticateToken('good-token'), { message: /status 401/ })
    webhook.kubeconfig(dir)
  })

  it('asks for the request audiences and checks the answer against them', async () => {
    const answer = await authenticator({ implicitAudiences: ['api'] }).authenticateToken('good-token', ['api', 'other'])
    assert.deepEqual(webhook.reviews.at(-1)!.spec.audiences, ['api', 'other'])
    assert.deepEqual(answer?.audiences, ['api'])
    assert.equal(await authenticator({ implicitAudiences: ['nope'] }).authenticateToken('good-token', ['api']), null)
  })

  it('names a configuration file it cannot use', () => {
    const broken = join(dir, 'broken.kubeconfig')
    writeFileSync(broken, 'apiVersion: v1\nkind: Config\nclusters: []\n')
    assert.throws(() => authenticator({ configFile: broken }), (err: Error) => err instanceof WebhookConfigError && err.message.startsWith(`--authentication-token-webhook-config-file ${broken}: `))
    assert.throws(() => authenticator({ version: 'v2' }), { message: 'unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"' })
  })
})
