// `client cluster start`, in three parts, each against `client server start` in the same run:
//
// 1. Ready: from spawning the process to /readyz answering 200, and, for `cluster start
//    --nodes=3`, to the three simulated nodes being Ready (GET /api/v1/nodes with the
//    administrator's certificate, each node's Ready condition True). Certificates and data are
//    present (a second start in the same directories, the usual case; the first start of each is
//    unmeasured). Goal (issue 36): within 1.5x the server's ready time.
// 2. Rollout: from spawning `cluster start` (certificates present, a new data directory) to
//    `kubectl create deployment web --image=nginx --replicas=3` then `kubectl rollout status
//    deployment/web` returning (kubectl 1.35, test/support/tools.json). Goal: ≤ 2 s after spawn;
//    the same run's `server start` to /readyz is the baseline, and the cluster process's CPU time
//    at that point is printed, as the shared machine distorts wall time.
// 3. Scale: `cluster start --nodes=1000`, then 10,000 pods from ten Deployments of 1,000
//    replicas: time to the nodes Ready and to every pod Ready, the process's RSS (goal ≤ 1 GB:
//    the peak, sampled every 250 ms), the heartbeat writes actually made over a window (Lease
//    renewals in kube-node-lease and Node status updates, counted on watches) against those
//    expected from --node-status-update-frequency (a Lease per node per period) and the default
//    node-heartbeat stage (a status per node every 20 + 25/2 s on average), and `kubectl get
//    pods -A`'s time (median of 3).
//
//   node bench/cluster.bench.js              BENCH_RUNS rounds (default 5) of parts 1 and 2, then part 3
//   node bench/cluster.bench.js --quick      (or BENCH_QUICK) 3 rounds; part 3 with 100 nodes and
//                                            1,000 pods, a 25 s window (a couple of minutes in all)
//   BENCH_NODES, BENCH_PODS, BENCH_WINDOW_SECONDS override part 3's sizes; BENCH_PARTS=ready,rollout,scale picks parts.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './support/net.js'
import { report } from './support/report.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/run.js')
const kubectl = join(root, JSON.parse(readFileSync(join(root, 'test/support/tools.json'), 'utf8')).tools.kubectl.command)
const QUICK = Boolean(process.env.BENCH_QUICK) || process.argv.includes('--quick')
const runs = QUICK ? 3 : Number(process.env.BENCH_RUNS ?? 5)
const parts = new Set((process.env.BENCH_PARTS ?? 'ready,rollout,scale').split(','))
const NODES = Number(process.env.BENCH_NODES ?? (QUICK ? 100 : 1000))
const PODS = Number(process.env.BENCH_PODS ?? (QUICK ? 1000 : 10_000))
const WINDOW_S = Number(process.env.BENCH_WINDOW_SECONDS ?? (QUICK ? 25 : 60))
const DEPLOYMENTS = Math.max(1, Math.round(PODS / 1000))
const READY_GOAL = 1.5
const ROLLOUT_GOAL_MS = 2000
const RSS_GOAL_MB = 1024
/** --node-status-update-frequency's default, and the default node-heartbeat stage's mean delay (20 s + jitter up to 45 s). */
const LEASE_PERIOD_S = 10
const STATUS_PERIOD_S = 20 + 25 / 2
const TICK = 100 // USER_HZ on Linux

function call(port, path, creds, { method = 'GET', body, timeout = 10_000 } = {}) {
  return new Promise((resolve) => {
    const headers = body ? { 'content-type': 'application/json' } : {}
    const req = request({ host: '127.0.0.1', port, path, method, headers, rejectUnauthorized: false, agent: false, timeout, ...creds }, (res) => {
      const chunks = []
      res.on('data', (d) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }))
    })
    req.on('error', () => resolve({ status: 0, body: '' }))
    req.on('timeout', () => req.destroy())
    req.end(body ? JSON.stringify(body) : undefined)
  })
}

/** The administrator's client certificate from the kubeconfig the server wrote. */
function adminCreds(file) {
  const text = readFileSync(file, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)[1], 'base64').toString()
  return { cert: field('client-certificate-data'), key: field('client-key-data') }
}

const readyNodes = (body) => {
  try {
    return (JSON.parse(body).items ?? []).filter((node) => (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length
  } catch {
    return 0
  }
}

/** CPU seconds (user + system) and RSS/peak RSS in MB of a process, from /proc. */
function usage(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
    return { cpu: (Number(fields[11]) + Number(fields[12])) / TICK, rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
  } catch {
    return { cpu: NaN, rss: NaN, hwm: NaN }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Spawns `command start`; `stop()` ends it by its PID. */
async function spawnStart(command, dir, dataDir, extra = []) {
  const port = await freePort()
  const args = [command, 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dataDir}`, `--write-kubeconfig=${dir}/kubeconfig`, ...extra]
  const started = performance.now()
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore', env: { ...process.env, HOME: dir } })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const since = () => performance.now() - started
  const until = async (what, test, timeoutMs = 60_000, every = 10) => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${command} start exited (${child.exitCode}) before ${what}`)
      if (await test()) return since()
      await sleep(every)
    }
    throw new Error(`${command} start: not ${what} within ${timeoutMs / 1000} s`)
  }
  const ready = () => until('ready', async () => (await call(port, '/readyz')).status === 200)
  const stop = async () => {
    child.kill('SIGTERM')
    await exited
  }
  return { port, pid: child.pid, since, until, ready, stop, kubeconfig: `${dir}/kubeconfig` }
}

/** Part 1: ms to /readyz and, with `nodes`, to N Ready nodes. */
async function timeStart(command, dir, nodes) {
  const s = await spawnStart(command, dir, `${dir}/data`, nodes ? [`--nodes=${nodes}`] : [])
  try {
    const ready = await s.ready()
    if (!nodes) return { ready }
    const creds = adminCreds(s.kubeconfig)
    const withNodes = await s.until(`${nodes} nodes Ready`, async () => readyNodes((await call(s.port, '/api/v1/nodes', creds)).body) >= nodes)
    return { ready, withNodes }
  } finally {
    await s.stop()
  }
}

function runKubectl(kubeconfig, args) {
  const r = spawnSync(kubectl, [`--kubeconfig=${kubeconfig}`, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr || r.error}`)
  return r.stdout
}

/** Part 2: ms from spawn to `rollout status` returning, and the process's CPU seconds then. */
async function timeRollout(dir, round) {
  const dataDir = `${dir}/data-${round}`
  const s = await spawnStart('cluster', dir, dataDir, ['--nodes=3'])
  try {
    const ready = await s.ready()
    runKubectl(s.kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=3'])
    runKubectl(s.kubeconfig, ['rollout', 'status', 'deployment/web', '--timeout=60s'])
    const done = s.since()
    return { ready, done, cpu: usage(s.pid).cpu }
  } finally {
    await s.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Counts MODIFIED events on a watch of `path` until `close()`, and each object's mean interval
 * between two of them: `perObject(n)` is the rate n objects sustain at that interval, which a
 * window does not bias as a count does when the writes come in bursts (a Lease per node at once).
 */
function countModified(port, path, creds) {
  let count = 0
  let buffered = ''
  const seen = new Map()
  const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, ...creds }, (res) => {
    res.setEncoding('utf8')
    res.on('data', (d) => {
      const lines = (buffered + d).split('\n')
      buffered = lines.pop()
      for (const line of lines) {
        if (!line.startsWith('{"type":"MODIFIED"')) continue
        count++
        const name = /"name":"([^"]+)"/.exec(line)?.[1] ?? ''
        const at = performance.now()
        const s = seen.get(name)
        if (s) {
          s.last = at
          s.n++
        } else seen.set(name, { first: at, last: at, n: 1 })
      }
    })
  })
  req.on('error', () => {})
  req.end()
  const perObject = (objects) => {
    const intervals = [...seen.values()].filter((s) => s.n >= 2).map((s) => (s.last - s.first) / (s.n - 1))
    return intervals.length === 0 ? NaN : objects / (intervals.reduce((a, b) => a + b, 0) / intervals.length / 1000)
  }
  return { count: () => count, perObject, close: () => req.destroy() }
}

const deployment = (name, replicas) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
})

/** Part 3: N nodes, P pods. */
async function scale(dir) {
  const s = await spawnStart('cluster', dir, `${dir}/data-scale`, [`--nodes=${NODES}`])
  let peak = { rss: 0, hwm: 0 }
  const sampler = setInterval(() => {
    const u = usage(s.pid)
    if (u.rss > peak.rss) peak = { ...peak, rss: u.rss }
    if (u.hwm > peak.hwm) peak = { ...peak, hwm: u.hwm }
  }, 250)
  try {
    const ready = await s.ready()
    const creds = adminCreds(s.kubeconfig)
    const nodesReady = await s.until(`${NODES} nodes Ready`, async () => readyNodes((await call(s.port, '/api/v1/nodes', creds, { timeout: 30_000 })).body) >= NODES, 300_000, 500)
    const cpuNodes = usage(s.pid).cpu
    const created = s.since()
    const per = Math.ceil(PODS / DEPLOYMENTS)
    for (let i = 0; i < DEPLOYMENTS; i++) {
      const r = await call(s.port, '/apis/apps/v1/namespaces/default/deployments', creds, { method: 'POST', body: deployment(`scale-${i}`, Math.min(per, PODS - i * per)) })
      if (r.status !== 201) throw new Error(`create deployment scale-${i}: ${r.status} ${r.body}`)
    }
    let lastReady = 0
    const podsReady = await s.until(
      `${PODS} pods Ready`,
      async () => {
        const r = await call(s.port, '/apis/apps/v1/namespaces/default/deployments', creds, { timeout: 30_000 })
        try {
          lastReady = JSON.parse(r.body).items.reduce((n, d) => n + (d.status?.readyReplicas ?? 0), 0)
        } catch {}
        return lastReady >= PODS
      },
      900_000,
      1000,
    ).catch((err) => {
      throw new Error(`${err.message} (${lastReady} Ready)`)
    })
    const cpuPods = usage(s.pid).cpu
    // The heartbeats sustained with every pod in place: MODIFIED events on watches over the window.
    const leases = countModified(s.port, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1&allowWatchBookmarks=false', creds)
    const nodes = countModified(s.port, '/api/v1/nodes?watch=1&allowWatchBookmarks=false', creds)
    const cpuBefore = usage(s.pid).cpu
    await sleep(WINDOW_S * 1000)
    const cpuWindow = usage(s.pid).cpu - cpuBefore
    // Leases: each node's interval between renewals (they come in bursts); Node status: the count
    // over the window (spread by the stage's jitter, and mostly longer than half the window).
    const heartbeats = { leases: leases.perObject(NODES), leasesCounted: leases.count() / WINDOW_S, nodes: nodes.count() / WINDOW_S }
    leases.close()
    nodes.close()
    const getPods = []
    let lines = 0
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      lines = runKubectl(s.kubeconfig, ['get', 'pods', '-A']).trimEnd().split('\n').length - 1
      getPods.push(performance.now() - t0)
    }
    if (lines < PODS) throw new Error(`kubectl get pods -A listed ${lines} pods, not ${PODS}`)
    const end = usage(s.pid)
    return { ready, nodesReady, podsReady: podsReady - created, cpuNodes, cpuPods, cpuWindow, heartbeats, getPods: median(getPods), rss: end.rss, peakRss: Math.max(peak.rss, end.rss), hwm: Math.max(peak.hwm, end.hwm) }
  } finally {
    clearInterval(sampler)
    await s.stop()
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dirs = { server: mkdtempSync(join(tmpdir(), 'bench-server-')), cluster: mkdtempSync(join(tmpdir(), 'bench-cluster-')) }
const samples = { server: [], cluster: [], clusterNodes: [], rollout: [], rolloutReady: [], rolloutCpu: [] }
let big
try {
  // First starts (certificates and keys generated), unmeasured.
  await timeStart('server', dirs.server)
  await timeStart('cluster', dirs.cluster, 3)
  for (let i = 0; i < runs; i++) {
    samples.server.push((await timeStart('server', dirs.server)).ready)
    if (parts.has('ready')) {
      const c = await timeStart('cluster', dirs.cluster, 3)
      samples.cluster.push(c.ready)
      samples.clusterNodes.push(c.withNodes)
    }
    if (parts.has('rollout')) {
      const r = await timeRollout(dirs.cluster, i)
      samples.rollout.push(r.done)
      samples.rolloutReady.push(r.ready)
      samples.rolloutCpu.push(r.cpu)
    }
  }
  if (parts.has('scale')) big = await scale(dirs.cluster)
} finally {
  for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true })
}

const server = median(samples.server)
const rows = []
console.log(`cluster start: ${runs} rounds, certificates present`)
console.log('| start | median ms | min ms | max ms | × server start |')
console.log('| --- | --- | --- | --- | --- |')
for (const [name, xs] of [
  ['server start, /readyz', samples.server],
  ['cluster start --nodes=3, /readyz', samples.cluster],
  ['cluster start --nodes=3, 3 nodes Ready', samples.clusterNodes],
  ['cluster start --nodes=3 (new data dir), /readyz', samples.rolloutReady],
  ['… then create deployment web --replicas=3 and rollout status returned', samples.rollout],
]) {
  if (xs.length > 0) console.log(`| ${name} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(median(xs) / server).toFixed(2)} |`)
}
if (samples.clusterNodes.length > 0) {
  const figure = median(samples.clusterNodes)
  rows.push({ subject: '`client cluster start --nodes=3`, spawn to 3 nodes Ready', figure, unit: 'ms', baseline: '`client server start`, spawn to /readyz 200', baselineFigure: server, goal: `≤ ${READY_GOAL}x`, met: figure / server <= READY_GOAL })
}
if (samples.rollout.length > 0) {
  const figure = median(samples.rollout)
  console.log(`rollout: the cluster process's CPU time at rollout status's return, median ${median(samples.rolloutCpu).toFixed(2)} s (min ${Math.min(...samples.rolloutCpu).toFixed(2)}, max ${Math.max(...samples.rolloutCpu).toFixed(2)})`)
  rows.push({ subject: '`cluster start --nodes=3` spawn to `kubectl create deployment web --replicas=3 && kubectl rollout status` returned', figure, unit: 'ms', baseline: '`client server start`, spawn to /readyz 200', baselineFigure: server, goal: `≤ ${ROLLOUT_GOAL_MS} ms`, met: figure <= ROLLOUT_GOAL_MS })
}
if (big) {
  const label = `${NODES.toLocaleString('en-US')} nodes, ${PODS.toLocaleString('en-US')} pods`
  console.log(`\nscale: ${label} (${DEPLOYMENTS} Deployments), heartbeat window ${WINDOW_S} s`)
  console.log(`  /readyz ${big.ready.toFixed(0)} ms; ${NODES} nodes Ready ${(big.nodesReady / 1000).toFixed(1)} s after spawn (CPU ${big.cpuNodes.toFixed(1)} s); ${PODS} pods Ready ${(big.podsReady / 1000).toFixed(1)} s after the Deployments' creation (CPU at that point ${big.cpuPods.toFixed(1)} s)`)
  console.log(`  RSS: peak ${big.peakRss.toFixed(0)} MB sampled, VmHWM ${big.hwm.toFixed(0)} MB, at the end ${big.rss.toFixed(0)} MB`)
  const leaseExpected = NODES / LEASE_PERIOD_S
  const statusExpected = NODES / STATUS_PERIOD_S
  console.log(`  heartbeats written: Leases ${big.heartbeats.leases.toFixed(1)}/s from each Lease's renewal interval (${big.heartbeats.leasesCounted.toFixed(1)}/s counted in the window; expected ${leaseExpected.toFixed(1)}/s), Node status ${big.heartbeats.nodes.toFixed(1)}/s (expected about ${statusExpected.toFixed(1)}/s); CPU over the window ${((big.cpuWindow / WINDOW_S) * 100).toFixed(0)}% of a core`)
  console.log(`  kubectl get pods -A: median ${big.getPods.toFixed(0)} ms`)
  rows.push(
    { subject: `\`cluster start\`, ${label}: peak RSS`, figure: big.hwm, unit: 'MB', goal: `≤ ${RSS_GOAL_MB} MB`, met: big.hwm <= RSS_GOAL_MB },
    { subject: `\`cluster start\`, ${label}: Lease renewals written per s`, figure: big.heartbeats.leases, unit: '/s', baseline: `expected from --node-status-update-frequency=${LEASE_PERIOD_S}s`, baselineFigure: leaseExpected, goal: '≥ 0.9x', met: big.heartbeats.leases / leaseExpected >= 0.9 },
    { subject: `\`cluster start\`, ${label}: Node status heartbeats written per s`, figure: big.heartbeats.nodes, unit: '/s', baseline: 'expected from the node-heartbeat stage (20–45 s)', baselineFigure: statusExpected, goal: '≥ 0.9x', met: big.heartbeats.nodes / statusExpected >= 0.9 },
    { subject: `\`cluster start\`, ${label}: \`kubectl get pods -A\``, figure: big.getPods, unit: 'ms' },
    { subject: `\`cluster start\`, ${label}: all pods Ready after the Deployments' creation`, figure: big.podsReady, unit: 'ms' },
  )
}
report(import.meta.url, rows)
