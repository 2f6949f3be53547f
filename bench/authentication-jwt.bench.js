// The JWT issuers and the token webhook alone, in this process (the per-request figures are
// in authentication.bench.js): microseconds per token for an OIDC ID token (RS256 signature
// with the cached key, claims, two CEL mappings and a CEL rule) and for a webhook token
// answered from the warm cache, against the cost of reading the Authorization header alone.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { JwtIssuers } from '../dist/server/authentication/jwt-issuers.js'
import { WebhookTokenAuthenticator } from '../dist/server/authentication/webhook.js'
import { bearerToken } from '../dist/server/authentication/bearer-token.js'
import { WEBHOOK_TOKEN, startIssuerAndWebhook } from './support/oidc-webhook.js'
import { report } from './support/report.js'

const dir = mkdtempSync(join(tmpdir(), 'client-bench-jwt-'))
const servers = await startIssuerAndWebhook(dir)
try {
  const quiet = { error() {}, v() {}, info() {} }
  const issuers = new JwtIssuers({ authenticationConfigFile: servers.configFile, serviceAccountIssuers: [], log: quiet })
  await issuers.start()
  const webhook = new WebhookTokenAuthenticator({ configFile: servers.webhookConfig, version: 'v1beta1', cacheTtlMs: 3_600_000, implicitAudiences: [] })
  const perCall = async (fn, n = 5000) => {
    for (let i = 0; i < 200; i++) await fn()
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) await fn()
    return Number(process.hrtime.bigint() - start) / n / 1000
  }
  const request = { headers: { authorization: `Bearer ${servers.idToken}` } }
  const header = await perCall(async () => bearerToken(request), 50_000)
  const oidc = await perCall(() => issuers.authenticateToken(servers.idToken))
  const hook = await perCall(() => webhook.authenticateToken(WEBHOOK_TOKEN))
  issuers.stop()
  console.log('| method alone (in process) | µs per token | × reading the header |')
  console.log('|---|---:|---:|')
  for (const [name, micros] of [['reading the Authorization header (baseline)', header], ['OIDC ID token: RS256 with the cached key, claims, 2 CEL mappings, 1 CEL rule', oidc], ['token webhook, warm cache', hook]]) {
    console.log(`| ${name} | ${micros.toFixed(2)} | ${(micros / header).toFixed(0)} |`)
  }
  report(import.meta.url, [
    { subject: 'OIDC ID token alone (RS256, cached key, claims, CEL)', figure: oidc, unit: 'µs', baseline: 'reading the Authorization header', baselineFigure: header },
    { subject: 'token webhook alone (warm cache)', figure: hook, unit: 'µs', baseline: 'reading the Authorization header', baselineFigure: header },
  ])
  console.log(`\nthe issuer's key set was fetched ${servers.hits.keys} time(s), the webhook asked ${servers.hits.reviews} time(s)`)
} finally {
  servers.close()
  rmSync(dir, { recursive: true, force: true })
}
