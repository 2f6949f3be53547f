// Scale: what many stored objects cost. For each store (embedded SQLite; etcd when it can run)
// and each object count, one server is filled with ConfigMaps of about 1 KB over HTTP/2 and
// then measured:
// - page-through: a plain Node client reading every page of `limit=500` (the baseline of
//   kubectl's paged list, and the figure whose growth must stay linear: the larger count's time
//   against the smaller's times the ratio of counts);
// - the unpaged LIST (JSON);
// - `kubectl get configmaps -A --chunk-size=500` (kubectl 1.35, its table discarded) against
//   the Node pager;
// - RSS: idle before the fill, steady after it (its growth over idle against the stored JSON
//   bytes), and the peak sampled every 20 ms during the lists;
// - restart to ready (SIGTERM, start again, first 200 from /readyz) against the empty restart
//   of the same server before its fill, and the RSS at ready and 3 s later (a server whose
//   caches fill after it says ready shows it there).
// Then, in the same run: a first start and a restart (certificates present) against a bare Node
// HTTPS start, and `client health check` against `node -e ''`.
//
//   node bench/scale.bench.js           embedded 10k and 100k, etcd 10k and 20k (about 10 min)
//   BENCH_QUICK=1 (npm run bench -- --quick scale): embedded 1k and 10k, etcd 1k and 2k
//   BENCH_SCALE_SIZES=10000,100000  BENCH_SCALE_ETCD_SIZES=10000,20000 (empty: no etcd)
//   BENCH_SCALE_REPEATS=2 (lists timed this many times; the best is reported)
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect as http2Connect } from 'node:http2'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { etcdAvailable, startEtcd } from './support/etcd.js'
import { freePort } from './support/net.js'
import { meets, report } from './support/report.js'
import { startServer } from './support/server.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const bareScript = fileURLToPath(new URL('./support/bare-https.js', import.meta.url))
const quick = process.env.BENCH_QUICK === '1'
const sizesOf = (name, fallback) => (process.env[name] ?? fallback).split(',').filter(Boolean).map(Number)
const embeddedSizes = sizesOf('BENCH_SCALE_SIZES', quick ? '1000,10000' : '10000,100000')
const etcdSizes = sizesOf('BENCH_SCALE_ETCD_SIZES', quick ? '1000,2000' : '10000,20000')
const repeats = Number(process.env.BENCH_SCALE_REPEATS ?? 2)
const startRounds = Number(process.env.BENCH_SCALE_START_ROUNDS ?? (quick ? 3 : 5))
const healthRounds = Number(process.env.BENCH_SCALE_HEALTH_ROUNDS ?? (quick ? 10 : 20))
const PAGE = 500
const VALUE_BYTES = 1000
const kubectlMissing = whyMissing('kubectl')
const kubectl = toolCommand('kubectl')

const MiB = 1024 * 1024
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Resident memory of a process in bytes (/proc/<pid>/status VmRSS). */
function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m[1]) * 1024
}
/** CPU time (user + system, all threads) of a process so far in ms, from /proc/<pid>/stat. */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Samples a process's RSS every 20 ms until stopped; `stop()` gives the peak. */
function rssPeak(pid) {
  let peak = rssOf(pid)
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid))
    } catch {
      // gone
    }
  }, 20)
  return () => (clearInterval(timer), peak)
}

/** Creates `count` ConfigMaps over one HTTP/2 connection, 8 in flight, retrying 429s. */
async function fill(server, count) {
  const session = http2Connect(server.url, { ca: server.ca, cert: server.cert, key: server.key, rejectUnauthorized: false })
  const value = 'x'.repeat(VALUE_BYTES)
  let next = 0
  const post = (name) =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', 'content-type': 'application/json' })
      let status = 0
      stream.on('response', (h) => (status = Number(h[':status'])))
      stream.resume()
      stream.on('end', () => resolve(status))
      stream.on('error', reject)
      stream.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { bench: 'scale' } }, data: { value } }))
    })
  const worker = async () => {
    while (next < count) {
      const name = `cm-${String(next++).padStart(6, '0')}`
      for (;;) {
        const status = await post(name)
        if (status === 201) break
        if (status !== 429) throw new Error(`creating ${name}: ${status}`)
        await sleep(20)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: 8 }, worker))
  } finally {
    session.close()
  }
}

/** A plain paged reader: every page of `limit=500` of all ConfigMaps; { ms, items, bytes }. */
async function pageThrough(server) {
  const start = performance.now()
  let items = 0
  let bytes = 0
  let token = ''
  do {
    const body = await server.admin('GET', `/api/v1/configmaps?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`)
    const list = JSON.parse(body)
    items += list.items.length
    for (const item of list.items) bytes += JSON.stringify(item).length
    token = list.metadata.continue ?? ''
  } while (token)
  return { ms: performance.now() - start, items, bytes }
}

async function unpagedList(server) {
  const start = performance.now()
  const body = await server.admin('GET', '/api/v1/configmaps')
  return { ms: performance.now() - start, bytes: body.length }
}

function kubectlGet(server) {
  return new Promise((resolve, reject) => {
    const start = performance.now()
    const child = spawn(kubectl, ['--kubeconfig', server.kubeconfig, 'get', 'configmaps', '-A', `--chunk-size=${PAGE}`], { stdio: ['ignore', 'pipe', 'pipe'] })
    let lines = 0
    let stderr = ''
    child.stdout.on('data', (c) => {
      for (const b of c) if (b === 10) lines++
    })
    child.stderr.on('data', (c) => (stderr += c))
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - start, lines }) : reject(new Error(`kubectl exited ${code}: ${stderr}`))))
  })
}

/**
 * The best of `repeats` runs of `f` (each resolving to { ms, ... }), with the least server CPU
 * any run took (`cpuMs`): on a machine shared with other work the wall time follows the load,
 * the server's CPU time far less.
 */
async function best(f, pid) {
  let out
  let cpuMs = Infinity
  for (let i = 0; i < repeats; i++) {
    const before = pid ? cpuMsOf(pid) : 0
    const r = await f()
    if (pid) cpuMs = Math.min(cpuMs, cpuMsOf(pid) - before)
    if (!out || r.ms < out.ms) out = r
  }
  return { ...out, cpuMs: pid ? cpuMs : undefined }
}

/** Polls /readyz every 10 ms (anonymous, as a load balancer does); resolves at the first 200. */
function readyAt(port, child) {
  return new Promise((resolve, reject) => {
    let done = false
    child.once('exit', (code) => {
      if (!done) reject(new Error(`the process exited with ${code} before it was ready`))
    })
    const attempt = () => {
      const req = request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false }, (res) => {
        res.resume()
        if (res.statusCode === 200) {
          done = true
          resolve(performance.now())
        } else setTimeout(attempt, 10)
      })
      req.on('error', () => setTimeout(attempt, 10))
      req.end()
    }
    attempt()
  })
}

/** Stops a server with SIGTERM (its store closed cleanly) and waits for its exit. */
async function stopGently(child) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  await exited
  clearTimeout(timer)
}

/** Starts the server of `dir` again and times it to ready; { ms, rssAtReady, rssLater }, stopped after. */
async function restart(dir, args) {
  const port = await freePort()
  const start = performance.now()
  const child = spawn(process.execPath, [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, ...args], { stdio: 'ignore' })
  try {
    const at = await readyAt(port, child)
    const rssAtReady = rssOf(child.pid)
    const cpuMs = cpuMsOf(child.pid)
    await sleep(3000)
    return { ms: at - start, cpuMs, rssAtReady, rssLater: rssOf(child.pid) }
  } finally {
    await stopGently(child)
  }
}

/** Everything measured for one store at one object count. */
async function measure(store, count, args) {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-scale-'))
  try {
    // The empty restart: bootstrap objects only.
    let server = await startServer(dir, args)
    await stopGently(server.child)
    const emptyRestart = await restart(dir, args)
    server = await startServer(dir, args)
    await sleep(2000)
    const idleRss = rssOf(server.child.pid)
    const fillStart = performance.now()
    await fill(server, count)
    const fillMs = performance.now() - fillStart
    await sleep(3000)
    const steadyRss = rssOf(server.child.pid)
    const peak = rssPeak(server.child.pid)
    const pages = await best(() => pageThrough(server), server.child.pid)
    if (pages.items < count) throw new Error(`the page-through read ${pages.items} items, ${count} created`)
    const unpaged = await best(() => unpagedList(server), server.child.pid)
    const kubectlRun = kubectlMissing ? undefined : await best(() => kubectlGet(server), server.child.pid)
    const peakRss = peak()
    server.agent.destroy()
    await stopGently(server.child)
    const restarted = await restart(dir, args)
    const r = { store, count, fillMs, idleRss, steadyRss, peakRss, storedBytes: pages.bytes, pages, unpaged, kubectl: kubectlRun, emptyRestart, restarted }
    const mib = (b) => `${(b / MiB).toFixed(0)} MiB`
    console.log(
      `${store} ${count}: fill ${(fillMs / 1000).toFixed(1)} s (${((count * 1000) / fillMs).toFixed(0)} creates/s); stored JSON ${mib(r.storedBytes)}; ` +
        `RSS idle ${mib(idleRss)}, steady ${mib(steadyRss)} (growth ${((steadyRss - idleRss) / r.storedBytes).toFixed(2)}x the stored bytes), peak ${mib(peakRss)}; ` +
        `page-through ${pages.ms.toFixed(0)} ms (server CPU ${pages.cpuMs} ms), unpaged LIST ${unpaged.ms.toFixed(0)} ms (${mib(unpaged.bytes)}), kubectl ${kubectlRun ? `${kubectlRun.ms.toFixed(0)} ms (${kubectlRun.lines} lines)` : 'not run'}; ` +
        `restart to ready ${restarted.ms.toFixed(0)} ms, CPU ${restarted.cpuMs} ms (empty ${emptyRestart.ms.toFixed(0)} ms, CPU ${emptyRestart.cpuMs} ms), RSS at ready ${mib(restarted.rssAtReady)}, 3 s later ${mib(restarted.rssLater)}`,
    )
    return r
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The rows of one store's counts: growth against the smallest count, kubectl against the pager. */
function rowsOf(results) {
  const [small, ...larger] = results
  const rows = []
  const label = (r) => `${r.store}, ${r.count.toLocaleString('en-US')} ConfigMaps`
  for (const r of larger) {
    const scale = r.count / small.count
    const ratio = r.pages.ms / (small.pages.ms * scale)
    rows.push({ subject: `${label(r)}: page-through (limit ${PAGE}) vs ${scale}x the ${small.count.toLocaleString('en-US')} time`, figure: r.pages.ms, unit: 'ms', baseline: `${scale}x the ${small.count.toLocaleString('en-US')} page-through`, baselineFigure: small.pages.ms * scale, ratio, goal: '≤ 1.2x', met: meets(ratio, '≤ 1.2x') })
    const cpuRatio = r.pages.cpuMs / (small.pages.cpuMs * scale)
    rows.push({ subject: `${label(r)}: page-through, the server's CPU time, vs ${scale}x the ${small.count.toLocaleString('en-US')} one`, figure: r.pages.cpuMs, unit: 'ms', baseline: `${scale}x the ${small.count.toLocaleString('en-US')} page-through's CPU`, baselineFigure: small.pages.cpuMs * scale, ratio: cpuRatio, goal: '≤ 1.2x', met: meets(cpuRatio, '≤ 1.2x') })
    const unpagedRatio = r.unpaged.ms / (small.unpaged.ms * scale)
    rows.push({ subject: `${label(r)}: unpaged LIST vs ${scale}x the ${small.count.toLocaleString('en-US')} time`, figure: r.unpaged.ms, unit: 'ms', baseline: `${scale}x the ${small.count.toLocaleString('en-US')} LIST`, baselineFigure: small.unpaged.ms * scale, ratio: unpagedRatio })
  }
  for (const r of results) {
    const growth = (r.steadyRss - r.idleRss) / r.storedBytes
    const goal = r.store === 'embedded' && r === results.at(-1) ? '≤ 2x' : undefined
    rows.push({ subject: `${label(r)}: RSS growth over idle (steady ${(r.steadyRss / MiB).toFixed(0)} MiB, idle ${(r.idleRss / MiB).toFixed(0)} MiB, peak during lists ${(r.peakRss / MiB).toFixed(0)} MiB) vs stored JSON`, figure: (r.steadyRss - r.idleRss) / MiB, unit: 'MiB', baseline: 'stored JSON', baselineFigure: r.storedBytes / MiB, ratio: growth, goal, met: goal ? meets(growth, goal) : undefined })
    const restartRatio = r.restarted.ms / r.emptyRestart.ms
    const restartGoal = r === results.at(-1) ? '≤ 3x' : undefined
    rows.push({ subject: `${label(r)}: restart to ready (RSS at ready ${(r.restarted.rssAtReady / MiB).toFixed(0)} MiB, 3 s later ${(r.restarted.rssLater / MiB).toFixed(0)} MiB)`, figure: r.restarted.ms, unit: 'ms', baseline: 'empty restart', baselineFigure: r.emptyRestart.ms, ratio: restartRatio, goal: restartGoal, met: restartGoal ? meets(restartRatio, restartGoal) : undefined })
    rows.push({ subject: `${label(r)}: restart, the server's CPU time to ready`, figure: r.restarted.cpuMs, unit: 'ms', baseline: 'empty restart', baselineFigure: r.emptyRestart.cpuMs })
    if (r.kubectl) {
      const k = r.kubectl.ms / r.pages.ms
      const kGoal = r === results.at(-1) ? '≤ 1.5x' : undefined
      rows.push({ subject: `${label(r)}: \`kubectl get configmaps -A --chunk-size=${PAGE}\``, figure: r.kubectl.ms, unit: 'ms', baseline: 'plain Node pager', baselineFigure: r.pages.ms, ratio: k, goal: kGoal, met: kGoal ? meets(k, kGoal) : undefined })
    }
  }
  return rows
}

/** Time from spawn to the first 200 of `/readyz` (or `/` for the bare server). */
async function timedStart(args, path = '/readyz') {
  const port = await freePort()
  const start = performance.now()
  const child = spawn(process.execPath, [...args(port)], { stdio: 'ignore' })
  try {
    const at = path === '/readyz' ? await readyAt(port, child) : await readyAtRoot(port, child)
    return { ms: at - start, cpuMs: cpuMsOf(child.pid) }
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}
function readyAtRoot(port, child) {
  return new Promise((resolve, reject) => {
    let done = false
    child.once('exit', (code) => !done && reject(new Error(`the bare server exited with ${code}`)))
    const attempt = () => {
      const req = request({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false, agent: false }, (res) => {
        res.resume()
        done = true
        resolve(performance.now())
      })
      req.on('error', () => setTimeout(attempt, 10))
      req.end()
    }
    attempt()
  })
}

async function startRows() {
  const first = []
  const again = []
  const bare = []
  const firstCpu = []
  const againCpu = []
  const bareCpu = []
  for (let i = 0; i <= startRounds; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'client-bench-scale-start-'))
    try {
      const server = (port) => [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${dir}/kubeconfig`]
      const f = await timedStart(server)
      const a = await timedStart(server)
      const b = await timedStart((port) => [bareScript, String(port), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], '/')
      // The first round is not counted: it fills the page cache.
      if (i > 0) first.push(f.ms), again.push(a.ms), bare.push(b.ms), firstCpu.push(f.cpuMs), againCpu.push(a.cpuMs), bareCpu.push(b.cpuMs)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const floor = median(bare)
  console.log(`start to ready, median of ${startRounds}: first start ${median(first).toFixed(0)} ms (CPU ${median(firstCpu)} ms), restart ${median(again).toFixed(0)} ms (CPU ${median(againCpu)} ms), bare Node HTTPS ${floor.toFixed(0)} ms (CPU ${median(bareCpu)} ms)`)
  const row = (subject, xs, goal) => ({ subject, figure: median(xs), unit: 'ms', baseline: 'bare Node HTTPS start', baselineFigure: floor, ratio: median(xs) / floor, goal, met: meets(median(xs) / floor, goal) })
  return [
    row(`first start to ready (certificates, keys, kubeconfig written), median of ${startRounds}`, first, '≤ 3x'),
    row(`restart to ready (certificates present, empty store), median of ${startRounds}`, again, '≤ 2x'),
    { subject: 'first start vs restart', figure: median(first), unit: 'ms', baseline: 'restart', baselineFigure: median(again), ratio: median(first) / median(again), goal: '≤ 2x', met: meets(median(first) / median(again), '≤ 2x') },
    { subject: "first start vs restart, the server's CPU time to ready", figure: median(firstCpu), unit: 'ms', baseline: 'restart', baselineFigure: median(againCpu) },
    { subject: "first start, the server's CPU time to ready", figure: median(firstCpu), unit: 'ms', baseline: "bare Node HTTPS start's CPU", baselineFigure: median(bareCpu) },
    { subject: "restart, the server's CPU time to ready", figure: median(againCpu), unit: 'ms', baseline: "bare Node HTTPS start's CPU", baselineFigure: median(bareCpu) },
  ]
}

function healthRows() {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-scale-health-'))
  const env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: join(dir, 'none') }
  const subjects = [
    { cmd: [process.execPath, '-e', ''], exit: 0 },
    { cmd: [process.execPath, bin, 'health', 'check', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify'], exit: 3 },
  ]
  const times = [[], []]
  try {
    for (let i = 0; i <= healthRounds; i++) {
      subjects.forEach((s, k) => {
        const start = performance.now()
        const r = spawnSync(s.cmd[0], s.cmd.slice(1), { cwd: dir, env })
        if (r.status !== s.exit) throw new Error(`${s.cmd.join(' ')} exited ${r.status}: ${r.stderr}`)
        if (i > 0) times[k].push(performance.now() - start)
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const [node, health] = times.map(median)
  console.log(`client health check ${health.toFixed(1)} ms, node -e '' ${node.toFixed(1)} ms (medians of ${healthRounds})`)
  return [{ subject: `\`client health check\` (connection refused), median of ${healthRounds}`, figure: health, unit: 'ms', baseline: "`node -e ''`", baselineFigure: node, ratio: health / node, goal: '≤ 1.3x', met: meets(health / node, '≤ 1.3x') }]
}

if (kubectlMissing) console.log(`kubectl not run: ${kubectlMissing}`)
const rows = []
const embedded = []
for (const count of embeddedSizes) embedded.push(await measure('embedded', count, []))
rows.push(...rowsOf(embedded))
if (etcdSizes.length > 0 && etcdAvailable()) {
  const etcd = []
  for (const count of etcdSizes) {
    const e = await startEtcd()
    try {
      etcd.push(await measure('etcd', count, [`--etcd-servers=${e.clientUrl}`]))
    } finally {
      await e.stop()
    }
  }
  rows.push(...rowsOf(etcd))
} else if (etcdSizes.length > 0) console.log('etcd cannot run here: its rows are left out')
rows.push(...(await startRows()))
rows.push(...healthRows())
report(import.meta.url, rows)
