// Cost of each authentication method per request: GET /version over keep-alive HTTPS/1.1
// (16 connections, one loop in this process) anonymously, with a client certificate
// (--client-ca-file: the chain is verified once per connection, dates every request), a
// token of --token-auth-file, a service-account token (ES256 JWT of the generated key,
// the service account looked up through the registry), an OIDC ID token of
// --authentication-config (RS256, the issuer's key cached after discovery, CEL claim mappings
// and a CEL rule) and a token of the token webhook (answered from its warm cache), each as a
// ratio of the anonymous rate of the same round, in alternating rounds of the same run. The
// issuer and the webhook are HTTPS servers in this process.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from './support/net.js'
import { WEBHOOK_TOKEN, startIssuerAndWebhook } from './support/oidc-webhook.js'
import { report } from './support/report.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = 16

function once(agent, port, path, headers, method = 'GET', body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      let data = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (data += d))
      res.on('end', () => resolve({ status: res.statusCode, body: data }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function rate(port, { cert, key, token }) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, rejectUnauthorized: false, ...(cert ? { cert, key } : {}) })
  const headers = token ? { Authorization: `Bearer ${token}` } : {}
  const probe = await once(agent, port, '/version', headers)
  if (probe.status !== 200) throw new Error(`GET /version answered ${probe.status}: ${probe.body}`)
  let done = 0
  const deadline = Date.now() + seconds * 1000
  const worker = async () => {
    while (Date.now() < deadline) {
      const r = await once(agent, port, '/version', headers)
      if (r.status !== 200) throw new Error(`GET /version answered ${r.status}`)
      done++
    }
  }
  const start = Date.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  agent.destroy()
  return done / ((Date.now() - start) / 1000)
}

const dir = mkdtempSync(join(tmpdir(), 'client-bench-authn-'))
const port = await freePort()
writeFileSync(join(dir, 'tokens.csv'), Array.from({ length: 1000 }, (_, i) => `token-${i},user-${i},uid-${i},"group-a,group-b"`).join('\n'))
const kubeconfig = join(dir, 'admin.kubeconfig')
const tokenMethods = await startIssuerAndWebhook(dir)
const server = spawn(
  process.execPath,
  [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${kubeconfig}`, `--token-auth-file=${dir}/tokens.csv`, ...tokenMethods.serverArgs],
  { stdio: 'ignore' },
)
try {
  await waitFor(`https://127.0.0.1:${port}/readyz`, 200)
  for (let i = 0; i < 100 && !(() => { try { return readFileSync(kubeconfig, 'utf8').includes('client-key-data') } catch { return false } })(); i++) await new Promise((r) => setTimeout(r, 100))
  const text = readFileSync(kubeconfig, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)[1], 'base64').toString()
  const admin = { cert: field('client-certificate-data'), key: field('client-key-data') }
  const adminAgent = new Agent({ rejectUnauthorized: false, ...admin })
  let sa
  for (let i = 0; i < 50; i++) {
    sa = await once(adminAgent, port, '/api/v1/namespaces/default/serviceaccounts/default/token', { 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} }))
    if (sa.status === 201) break
    await new Promise((r) => setTimeout(r, 200))
  }
  if (sa.status !== 201) throw new Error(`TokenRequest answered ${sa.status}: ${sa.body}`)
  const saToken = JSON.parse(sa.body).status.token

  // Alternating rounds, each method against the anonymous rate of its own round, so that the
  // load of the machine changing during the run moves the baseline with it.
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
  const methods = [
    ['anonymous', {}],
    ['client certificate (x509)', admin],
    ['token file (1,000 tokens)', { token: 'token-500' }],
    ['service-account JWT (ES256, generated key)', { token: saToken }],
    ['OIDC ID token (RS256, cached key, CEL)', { token: tokenMethods.idToken }],
    ['token webhook (warm cache)', { token: WEBHOOK_TOKEN }],
  ]
  const rates = methods.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, credentials]] of methods.entries()) rates[i].push(await rate(port, credentials))
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  console.log(`GET /version, ${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds of ${seconds}s per method\n`)
  console.log('| method | requests/s (median) | × anonymous (median of the rounds) |')
  console.log('|---|---:|---:|')
  for (const [i, [name]] of methods.entries()) {
    const ratio = median(rates[i].map((r, round) => r / rates[0][round]))
    console.log(`| ${name} | ${median(rates[i]).toFixed(0)} | ${ratio.toFixed(2)} |`)
  }
  report(
    import.meta.url,
    methods.slice(1).map(([name], k) => ({ subject: `GET /version authenticated by ${name}`, figure: median(rates[k + 1]), unit: 'requests/s', baseline: 'anonymous', baselineFigure: median(rates[0]), ratio: median(rates[k + 1].map((r, round) => r / rates[0][round])) })),
  )
  console.log(`\nthe issuer's key set was fetched ${tokenMethods.hits.keys} time(s), the webhook asked ${tokenMethods.hits.reviews} time(s)`)
} finally {
  server.kill('SIGKILL')
  tokenMethods.close()
  rmSync(dir, { recursive: true, force: true })
}
