import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Registry } from 'prom-client'
import { TokenIssuer, serviceAccountAuthenticator } from '../../../src/server/authentication/service-account.js'
import { ensureGeneratedSigningKey } from '../../../src/server/authentication/service-account-keys.js'
import { serviceAccountMetrics } from '../../../src/server/authentication/service-account-metrics.js'

describe('service-account tokens: warnafter', () => {
  let dir: string
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-tokens-'))
  })
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('a projected token used after its warnafter still works and is counted as stale; before it, as valid', async () => {
    const key = await ensureGeneratedSigningKey(dir)
    const issuer = new TokenIssuer('https://issuer.test', key)
    const sa = { metadata: { name: 'app', namespace: 'team', uid: 'sa-uid' } }
    const pod = { metadata: { name: 'web', namespace: 'team', uid: 'pod-uid' } }
    const issuedAt = new Date('2026-01-01T00:00:00Z')
    const token = await issuer.generate({ serviceAccount: sa, pod, audiences: ['api'], expirationSeconds: 365 * 24 * 3600, warnAfterSeconds: 3607 }, issuedAt)
    const registry = new Registry()
    let now = issuedAt.getTime() + 60_000
    const authenticator = serviceAccountAuthenticator({
      issuers: ['https://issuer.test'],
      keys: [{ key: key.publicKey, kid: key.kid }],
      lookup: true,
      objects: async (resource) => (resource === 'serviceaccounts' ? sa : resource === 'pods' ? pod : undefined),
      now: () => now,
      events: serviceAccountMetrics(registry),
    })
    const ctx = { audiences: ['api'], path: '/api' }
    assert.equal((await authenticator.authenticateToken(token, ctx))?.user.name, 'system:serviceaccount:team:app')
    now = issuedAt.getTime() + 2 * 3600_000
    assert.equal((await authenticator.authenticateToken(token, ctx))?.user.name, 'system:serviceaccount:team:app')
    await authenticator.authenticateToken(token, ctx)
    const text = await registry.metrics()
    assert.match(text, /^serviceaccount_valid_tokens_total 1$/m)
    assert.match(text, /^serviceaccount_stale_tokens_total 2$/m)
    assert.match(text, /^serviceaccount_legacy_tokens_total 0$/m)
    assert.match(text, /# HELP serviceaccount_stale_tokens_total \[ALPHA\] Cumulative stale projected service account tokens used/)
  })
})
