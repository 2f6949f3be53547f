// Ready time of `client cluster start --nodes=3` against `client server start`, in the same run,
// interleaved: from spawning the process to /readyz answering 200, and, for the cluster, to the
// three simulated nodes being Ready (GET /api/v1/nodes with the administrator's certificate, each
// node's Ready condition True). Certificates and data are present (a second start in the same
// directories, the usual case; the first start of each is unmeasured). Goal (issue 36): the
// cluster ready with its nodes within 1.5x the server's ready time. BENCH_RUNS rounds (default 5).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './support/net.js'
import { report } from './support/report.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 5)
const GOAL = 1.5

function get(port, path, creds) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, timeout: 2_000, ...creds }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode, body }))
    })
    req.on('error', () => resolve({ status: 0, body: '' }))
    req.on('timeout', () => req.destroy())
    req.end()
  })
}

/** The administrator's client certificate from the kubeconfig the server wrote. */
function adminCreds(file) {
  const text = readFileSync(file, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)[1], 'base64').toString()
  return { cert: field('client-certificate-data'), key: field('client-key-data') }
}

const nodesReady = (body, n) => {
  try {
    const items = JSON.parse(body).items ?? []
    return items.filter((node) => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length >= n
  } catch {
    return false
  }
}

/** Spawns `command start` in `dir`; resolves with ms to /readyz 200 and, with `nodes`, to N Ready nodes. */
async function timeStart(command, dir, nodes) {
  const port = await freePort()
  const args = [command, 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${dir}/kubeconfig`, ...(nodes ? [`--nodes=${nodes}`] : [])]
  const started = performance.now()
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore', env: { ...process.env, HOME: dir } })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const deadline = Date.now() + 60_000
  let ready
  let withNodes
  try {
    while (ready === undefined && Date.now() < deadline) {
      if ((await get(port, '/readyz')).status === 200) ready = performance.now() - started
      else await new Promise((r) => setTimeout(r, 10))
    }
    if (nodes) {
      const creds = adminCreds(`${dir}/kubeconfig`)
      while (withNodes === undefined && Date.now() < deadline) {
        if (nodesReady((await get(port, '/api/v1/nodes', creds)).body, nodes)) withNodes = performance.now() - started
        else await new Promise((r) => setTimeout(r, 10))
      }
    }
  } finally {
    child.kill('SIGTERM')
    await exited
  }
  if (ready === undefined || (nodes && withNodes === undefined)) throw new Error(`${command} start was not ready within 60 s`)
  return { ready, withNodes }
}

const dirs = { server: mkdtempSync(join(tmpdir(), 'bench-server-')), cluster: mkdtempSync(join(tmpdir(), 'bench-cluster-')) }
const samples = { server: [], cluster: [], clusterNodes: [] }
try {
  // First starts (certificates and keys generated), unmeasured.
  await timeStart('server', dirs.server)
  await timeStart('cluster', dirs.cluster, 3)
  for (let i = 0; i < runs; i++) {
    samples.server.push((await timeStart('server', dirs.server)).ready)
    const c = await timeStart('cluster', dirs.cluster, 3)
    samples.cluster.push(c.ready)
    samples.clusterNodes.push(c.withNodes)
  }
} finally {
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const server = median(samples.server)
console.log(`cluster start-up: ${runs} rounds, certificates present`)
console.log('| start | median ms | min ms | max ms | × server start |')
console.log('| --- | --- | --- | --- | --- |')
for (const [name, xs] of [['server start, /readyz', samples.server], ['cluster start --nodes=3, /readyz', samples.cluster], ['cluster start --nodes=3, 3 nodes Ready', samples.clusterNodes]]) {
  console.log(`| ${name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(median(xs) / server).toFixed(2)} |`)
}
const figure = median(samples.clusterNodes)
report(import.meta.url, [
  {
    subject: '`client cluster start --nodes=3`, spawn to 3 nodes Ready',
    figure,
    unit: 'ms',
    baseline: '`client server start`, spawn to /readyz 200',
    baselineFigure: server,
    goal: `≤ ${GOAL}x`,
    met: figure / server <= GOAL,
  },
])
