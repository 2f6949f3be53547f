// The aggregation layer's proxy (issue 34): requests per second of a GET of one object through
// an APIService backed by a service (the server proxies it to an extension server on loopback,
// bench/support/extension-server.js, in its own process, over keep-alive TLS, with
// --enable-aggregator-routing and an EndpointSlice naming it) against a GET of a ConfigMap of
// the same size served by the server itself, in the same run, rounds interleaved, 8 in flight.
// Goal: the aggregated GET ≥ 0.5 of the local GET's throughput.
// Needs the build (npm run build).   BENCH_SCALE=0.2: quick
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { meets, report } from './support/report.js'
import { startServer } from './support/server.js'
import { rate } from './support/store-bench.js'

const scale = Number(process.env.BENCH_SCALE ?? 1)
const count = Math.max(300, Math.round(4000 * scale))
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const GOAL = '≥ 0.5'
const GROUP = 'wardle.example.com'
const VERSION = 'v1alpha1'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-aggregator-'))
const server = await startServer(dir, ['--enable-aggregator-routing'], { maxSockets: 16 })
// The extension server presents the API server's own serving certificate (the APIService skips verification).
const ext = spawn(process.execPath, [fileURLToPath(new URL('./support/extension-server.js', import.meta.url)), path.join(dir, 'certs', 'apiserver.crt'), path.join(dir, 'certs', 'apiserver.key')], { stdio: ['ignore', 'pipe', 'inherit'] })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

async function ok(method, urlPath, body) {
  const r = await server.admin.raw(method, urlPath, { body: body === undefined ? undefined : JSON.stringify(body) })
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${urlPath}: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`)
  return r
}

try {
  const extPort = await new Promise((resolve, reject) => {
    ext.stdout.once('data', (d) => resolve(Number(String(d).trim())))
    ext.once('exit', (code) => reject(new Error(`the extension server exited ${code}`)))
  })
  await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } })
  await ok('POST', '/api/v1/namespaces/wardle/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { ports: [{ port: 443, protocol: 'TCP' }] } })
  await ok('POST', '/apis/discovery.k8s.io/v1/namespaces/wardle/endpointslices', {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'api-1', labels: { 'kubernetes.io/service-name': 'api' } },
    addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }], ports: [{ name: '', port: extPort, protocol: 'TCP' }],
  })
  await ok('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `${VERSION}.${GROUP}` },
    spec: { group: GROUP, version: VERSION, groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: 'wardle', name: 'api', port: 443 } },
  })
  await ok('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { payload: 'x'.repeat(900) } })
  const deadline = Date.now() + 30_000
  for (;;) {
    const r = await server.admin.raw('GET', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders/f1`)
    if (r.status === 200) break
    if (Date.now() > deadline) throw new Error(`the APIService did not become available: ${r.status} ${r.body}`)
    await new Promise((r) => setTimeout(r, 200))
  }
  const local = () => rate(count, 8, () => ok('GET', '/api/v1/namespaces/default/configmaps/c1'))
  const aggregated = () => rate(count, 8, () => ok('GET', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders/f1`))
  // Warm-up of both paths (the JIT, the connections), then interleaved rounds.
  await local()
  await aggregated()
  const figures = { local: [], aggregated: [] }
  for (let i = 0; i < rounds; i++) {
    figures.local.push(await local())
    figures.aggregated.push(await aggregated())
  }
  const l = median(figures.local)
  const a = median(figures.aggregated)
  const ratio = a / l
  console.log(`  local GET (a ConfigMap)          ${Math.round(l)} requests/s`)
  console.log(`  aggregated GET (a Flunder)       ${Math.round(a)} requests/s`)
  console.log(`  ratio                            ${ratio.toFixed(2)}x (goal ${GOAL}: ${meets(ratio, GOAL) ? 'met' : 'NOT met'})`)
  report(import.meta.url, [{ subject: 'aggregated GET through the proxy', figure: a, unit: 'requests/s', baseline: 'local GET', baselineFigure: l, goal: GOAL, met: meets(ratio, GOAL) }])
} finally {
  ext.kill()
  await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}
