// What authorization adds to a request: GETs of one ConfigMap by a token user, on a server
// with the default Node,RBAC (the user bound to `view` in the namespace, with 1,000 other
// Roles and 1,000 other RoleBindings present) against the same GETs on a server with
// AlwaysAllow, in the same run. Goal: RBAC keeps at least 0.9 of the AlwaysAllow throughput.
// Needs the build (npm run build).
//   node bench/authorization.bench.js          BENCH_SCALE=0.2 for a quick run
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { rate } from './support/store-bench.js'
import { freePort } from './support/net.js'
import { report } from './support/report.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const scale = Number(process.env.BENCH_SCALE ?? 1)
const n = (count) => Math.max(20, Math.round(count * scale))
const CONCURRENCY = 16
const OTHERS = 1000
const TOKEN = 'bench-token'

function client(port, ca, auth) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2, ca, ...(auth.cert ? { cert: auth.cert, key: auth.key } : {}) })
  return (method, urlPath, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
      const headers = { accept: 'application/json', ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) }
      const req = https.request({ host: '127.0.0.1', port, method, path: urlPath, agent, headers }, (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => (res.statusCode >= 300 ? reject(new Error(`${method} ${urlPath}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)) : resolve()))
      })
      req.on('error', reject)
      req.end(payload)
    })
}

function adminCredentials(kubeconfig) {
  const text = fs.readFileSync(kubeconfig, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)[1], 'base64').toString('utf8')
  return { cert: field('client-certificate-data'), key: field('client-key-data') }
}

async function startServer(dir, args) {
  const port = await freePort()
  fs.writeFileSync(path.join(dir, 'tokens.csv'), `${TOKEN},bench-user,bench-uid\n`)
  const child = spawn(
    process.execPath,
    [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${dir}/admin.kubeconfig`, `--token-auth-file=${dir}/tokens.csv`, ...args],
    { stdio: 'ignore' },
  )
  // With AlwaysAllow anonymous access is off: readiness is asked as the administrator.
  const deadline = Date.now() + 60_000
  while (!fs.existsSync(`${dir}/admin.kubeconfig`)) {
    if (Date.now() > deadline) throw new Error('the server wrote no kubeconfig')
    await new Promise((r) => setTimeout(r, 50))
  }
  const ca = fs.readFileSync(`${dir}/certs/ca.crt`)
  const admin = client(port, ca, adminCredentials(`${dir}/admin.kubeconfig`))
  for (;;) {
    try {
      await admin('GET', '/readyz')
      break
    } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { port, child, admin, user: client(port, ca, { token: TOKEN }) }
}

const rbac = (kind, namespace, name, extra) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name, namespace }, ...extra })

async function prepare(server) {
  const { admin } = server
  for (const ns of ['bench', 'others']) await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
  await admin('POST', '/api/v1/namespaces/bench/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { payload: 'x'.repeat(900) } })
  await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings', rbac('RoleBinding', 'bench', 'bench-view', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bench-user' }] }))
  const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/others/roles'
  const bindings = '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings'
  await rate(OTHERS, CONCURRENCY, (i) => admin('POST', roles, rbac('Role', 'others', `r${i}`, { rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [`n${i}`] }] })))
  // Bindings in the request's namespace, to other users: RBAC walks every one of them.
  await rate(OTHERS, CONCURRENCY, (i) =>
    admin('POST', bindings, rbac('RoleBinding', 'bench', `b${i}`, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `someone-${i}` }] })),
  )
  // The informers have caught up once the user's own binding is seen and the last object exists.
  for (;;) {
    try {
      await server.user('GET', '/api/v1/namespaces/bench/configmaps/target')
      break
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

// Both servers run side by side and are measured in alternating rounds, so that load from
// elsewhere on the machine falls on both alike; the best round of each counts.
const servers = []
try {
  for (const [label, args] of [
    ['AlwaysAllow', ['--authorization-mode=AlwaysAllow']],
    ['RBAC (default Node,RBAC)', []],
  ]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'authz-bench-'))
    const server = await startServer(dir, args)
    servers.push({ label, dir, server, one: 0, many: 0 })
    await prepare(server)
  }
  for (const s of servers) await rate(n(500), CONCURRENCY, () => s.server.user('GET', '/api/v1/namespaces/bench/configmaps/target')) // warm-up
  for (let round = 0; round < 3; round++) {
    for (const s of servers) {
      const get = () => s.server.user('GET', '/api/v1/namespaces/bench/configmaps/target')
      s.one = Math.max(s.one, await rate(n(1500), 1, get))
      s.many = Math.max(s.many, await rate(n(5000), CONCURRENCY, get))
    }
  }
  for (const s of servers) console.error(`  ${s.label.padEnd(26)} GET 1 in flight ${Math.round(s.one)}/s, ${CONCURRENCY} in flight ${Math.round(s.many)}/s`)
} finally {
  for (const s of servers) {
    s.server.child.kill('SIGTERM')
    await new Promise((r) => s.server.child.once('exit', r))
    fs.rmSync(s.dir, { recursive: true, force: true })
  }
}

const [base, rb] = servers
console.log(`| GET of one ConfigMap by a token user | AlwaysAllow | Node,RBAC (${OTHERS} roles, ${OTHERS} bindings) | ratio |`)
console.log('|---|---:|---:|---:|')
console.log(`| 1 in flight | ${Math.round(base.one)}/s | ${Math.round(rb.one)}/s | ${(rb.one / base.one).toFixed(2)} |`)
console.log(`| ${CONCURRENCY} in flight | ${Math.round(base.many)}/s | ${Math.round(rb.many)}/s | ${(rb.many / base.many).toFixed(2)} |`)
report(import.meta.url, [
  { subject: `GET of one ConfigMap by a token user under Node,RBAC (${OTHERS} roles, ${OTHERS} bindings), 1 in flight`, figure: rb.one, unit: 'requests/s', baseline: 'AlwaysAllow', baselineFigure: base.one },
  { subject: `the same, ${CONCURRENCY} in flight`, figure: rb.many, unit: 'requests/s', baseline: 'AlwaysAllow', baselineFigure: base.many, goal: '≥ 0.9x', met: rb.many / base.many >= 0.9 },
])
