// Cost per request of the JWT authenticator (keys cached after discovery) and of the token
// webhook (warm cache), as a ratio of an anonymous request to the same path in the same run,
// with wrk on loopback. The issuer (discovery and JWKS) and the webhook are HTTPS servers in
// this process; the API server is the built binary with both configured.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { createCaCertificate, createLeafCertificate, generateKey, privateKeyPem } from '../dist/server/tls/generate.js'
import { freePort, waitFor } from './support/net.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed (Debian: apt-get install wrk)')
  process.exit(1)
}

function get(url, token) {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume()
      resolve(res.statusCode)
    })
    req.on('error', reject)
    req.end()
  })
}

function wrk(url, header) {
  const args = ['-t1', '-c16', `-d${seconds}s`, '--latency', ...(header ? ['-H', header] : []), url]
  const run = spawnSync('wrk', args, { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p50 = /50%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? '0'
  return { rps, p50, p99, errors }
}

const dir = mkdtempSync(join(tmpdir(), 'client-bench-authn-'))
const now = Date.now()
const caKey = await generateKey('ecdsa')
const caPem = await createCaCertificate({ key: caKey, commonName: 'bench-ca', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) })
const leafKey = await generateKey('ecdsa')
const certPem = await createLeafCertificate({
  ca: { certPem: caPem, privateKey: caKey.privateKey },
  publicKey: leafKey.publicKey,
  commonName: 'bench',
  dns: ['localhost'],
  ips: ['127.0.0.1'],
  notBefore: new Date(now - 3_600_000),
  notAfter: new Date(now + 86_400_000),
})
const tls = { cert: certPem, key: privateKeyPem(leafKey.privateKey) }

// The issuer: discovery and keys.
const { privateKey, publicKey } = await generateKeyPair('RS256')
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' }
const issuerPort = await freePort()
const issuerUrl = `https://127.0.0.1:${issuerPort}`
const hits = { keys: 0, reviews: 0 }
const issuer = createServer(tls, (req, res) => {
  res.setHeader('content-type', 'application/json')
  if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer: issuerUrl, jwks_uri: `${issuerUrl}/keys` }))
  else if (req.url === '/keys') {
    hits.keys++
    res.end(JSON.stringify({ keys: [jwk] }))
  } else {
    res.statusCode = 404
    res.end('{}')
  }
})
await new Promise((resolve) => issuer.listen(issuerPort, '127.0.0.1', resolve))

// The webhook: one known token.
const webhookPort = await freePort()
const webhook = createServer(tls, (req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    hits.reviews++
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const ok = review.spec.token === 'bench-webhook-token'
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: ok ? { authenticated: true, user: { username: 'hook', groups: ['g'] } } : { authenticated: false } }))
  })
})
await new Promise((resolve) => webhook.listen(webhookPort, '127.0.0.1', resolve))

const configFile = join(dir, 'authentication-config.yaml')
writeFileSync(
  configFile,
  `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuerUrl}
    audiences: [bench]
    certificateAuthority: ${JSON.stringify(caPem)}
  claimValidationRules:
  - expression: "claims.tier == 'gold'"
    message: gold only
  claimMappings:
    username:
      expression: "'oidc:' + claims.sub"
    groups:
      expression: "claims.roles"
`,
)
const webhookConfig = join(dir, 'webhook.kubeconfig')
writeFileSync(
  webhookConfig,
  `apiVersion: v1
kind: Config
clusters: [{name: w, cluster: {server: "https://127.0.0.1:${webhookPort}/", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]
users: [{name: u, user: {token: caller}}]
contexts: [{name: w, context: {cluster: w, user: u}}]
current-context: w
`,
)

const jwt = await new SignJWT({ iss: issuerUrl, aud: 'bench', sub: 'alice', tier: 'gold', roles: ['dev'] })
  .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey)

const port = await freePort()
const server = spawn(
  process.execPath,
  [
    bin,
    'server',
    'start',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${dir}/certs`,
    `--data-dir=${dir}/data`,
    `--authentication-config=${configFile}`,
    `--authentication-token-webhook-config-file=${webhookConfig}`,
    '--authentication-token-webhook-cache-ttl=1h',
    // Priority and fairness puts anonymous requests in the small catch-all level, which would
    // be measured instead of authentication: the max-in-flight limits treat all alike.
    '--enable-priority-and-fairness=false',
  ],
  { stdio: ['ignore', 'ignore', process.env.BENCH_VERBOSE ? 'inherit' : 'ignore'] },
)
try {
  await waitFor(`https://127.0.0.1:${port}/readyz`, 200)
  const url = `https://127.0.0.1:${port}/version`
  // wrk runs synchronously, so the issuer and the webhook in this process cannot answer
  // during the runs: warm the key set and the webhook cache first (what is measured is the
  // warm path anyway), and check both tokens are accepted.
  for (const token of [jwt, 'bench-webhook-token']) {
    const status = await get(url, token)
    if (status !== 200) throw new Error(`the token was not accepted (${status})`)
  }
  // A discarded first run warms the server up. The three kinds then run in turn, three
  // rounds, and each is reported by its median round, so load drifting on a shared machine
  // weighs on all of them alike.
  wrk(url)
  const kinds = { anonymous: undefined, jwt: `Authorization: Bearer ${jwt}`, webhook: 'Authorization: Bearer bench-webhook-token' }
  const rounds = { anonymous: [], jwt: [], webhook: [] }
  for (let round = 0; round < Number(process.env.BENCH_ROUNDS ?? 3); round++) {
    for (const [kind, header] of Object.entries(kinds)) rounds[kind].push(wrk(url, header))
  }
  const median = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]
  const anonymous = median(rounds.anonymous)
  const withJwt = median(rounds.jwt)
  const withWebhook = median(rounds.webhook)
  console.log('| request to /version | requests/s | p50 | p99 | non-2xx | × anonymous |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const [name, r] of [
    ['anonymous', anonymous],
    ['JWT (CEL mappings, cached keys)', withJwt],
    ['token webhook (warm cache)', withWebhook],
  ]) {
    console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${(r.rps / anonymous.rps).toFixed(2)} |`)
  }
  console.log(`\nkey set fetched ${hits.keys} time(s), webhook asked ${hits.reviews} time(s) for all the requests above`)

  // The methods alone, in this process: what authentication adds to a request, without the
  // HTTP noise of a shared machine.
  const { JwtIssuers } = await import('../dist/server/authentication/jwt-issuers.js')
  const { WebhookTokenAuthenticator } = await import('../dist/server/authentication/webhook.js')
  const quiet = { error() {}, v() {}, info() {} }
  const issuers = new JwtIssuers({ authenticationConfigFile: configFile, serviceAccountIssuers: [], log: quiet })
  await issuers.start()
  const hook = new WebhookTokenAuthenticator({ configFile: webhookConfig, version: 'v1beta1', cacheTtlMs: 3_600_000, implicitAudiences: [] })
  await hook.authenticateToken('bench-webhook-token')
  const perCall = async (fn) => {
    for (let i = 0; i < 200; i++) await fn()
    const n = 5000
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) await fn()
    return Number(process.hrtime.bigint() - start) / n / 1000
  }
  const jwtMicros = await perCall(() => issuers.authenticateToken(jwt))
  const hookMicros = await perCall(() => hook.authenticateToken('bench-webhook-token'))
  issuers.stop()
  console.log('\n| method alone (in process) | µs per token |')
  console.log('|---|---:|')
  console.log(`| JWT: signature (RS256) with the cached key, claims, CEL mappings and rule | ${jwtMicros.toFixed(1)} |`)
  console.log(`| token webhook, warm cache (SHA-256 of the token, map lookup) | ${hookMicros.toFixed(1)} |`)
} finally {
  server.kill('SIGKILL')
  issuer.close()
  webhook.close()
  issuer.closeAllConnections()
  webhook.closeAllConnections()
  rmSync(dir, { recursive: true, force: true })
}
