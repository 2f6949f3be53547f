// The request path of `client server start` (issue 18 item 1), measured with wrk over HTTPS
// keep-alive (16 connections, loopback) against a bare Node HTTPS server answering `ok` with
// the same certificate, in the same run:
//   - /readyz and /readyz?verbose (anonymous, as probes are);
//   - GET of one small ConfigMap by a token user whom RBAC (the default authorization mode)
//     allows through a RoleBinding, and the same on a second server with AlwaysAllow.
// Rounds are interleaved (bare, readyz, ..., GET AlwaysAllow, again) and each figure is the
// median of its rounds, so that the load of a shared machine falls on all alike. The servers and
// the bare baselines run pinned to the same CPUs and wrk to the others (support/cpu-pin.js:
// unpinned, back-to-back runs of one bare server varied 2x); BENCH_PIN=0 turns it off.
// Goals: /readyz ≥ 0.7 of bare; GET ≥ 0.4 of bare; GET with RBAC ≥ 0.8 of AlwaysAllow.
// Every subject is first warmed up for BENCH_WARMUP_SECONDS (default 6; not measured): a fresh
// server's first seconds of GETs cost 4x the steady state's CPU per request (the JIT's warm-up).
// Needs wrk (Debian package `wrk`).   BENCH_SECONDS (per round, default 3), BENCH_ROUNDS (default 3)
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pinned, pinningNote } from './support/cpu-pin.js'
import { freePort } from './support/net.js'
import { meets, report } from './support/report.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
// Each subject's warm-up before the measured rounds: a fresh server's CPU per GET fell from
// ~1,100 to ~250 µs over its first 6-8 s of wrk (load 8): the JIT's warm-up, not the steady state.
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 6)
const missing = whyMissing('wrk')
if (missing) {
  console.error(missing)
  process.exit(1)
}
const WRK = toolCommand('wrk')
const TOKEN = 'bench-token-0123456789'

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

function wrk(url, headers = [], pid, duration = seconds) {
  const cpuBefore = cpuSeconds(pid)
  const run = spawnSync(...pinned(WRK, ['-t1', '-c16', `-d${duration}s`, '--latency', ...headers.flatMap((h) => ['-H', h]), url], 'load'), { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p50 = /50%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? '0')
  const requests = Number(/(\d+) requests in/.exec(run.stdout)?.[1])
  // The server's CPU time per request: unlike throughput, barely moved by other load on the machine.
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) / requests) * 1e6
  return { rps, p50, p99, errors, cpuUs }
}

/** A request as the administrator (the client certificate of the written kubeconfig). */
function admin(port, dir, method, path, body) {
  const kubeconfig = readFileSync(`${dir}/kubeconfig`, 'utf8')
  const field = (name) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)[1], 'base64').toString()
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined
    const req = https.request(
      { host: '127.0.0.1', port, method, path, rejectUnauthorized: false, cert: field('client-certificate-data'), key: field('client-key-data'), headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        res.resume()
        res.on('end', () => (res.statusCode < 300 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode}`))))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

async function startServer(dir, name, args) {
  const port = await freePort()
  const child = spawn(
    ...pinned(
      process.execPath,
      [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/${name}`, `--write-kubeconfig=${dir}/kubeconfig`, `--token-auth-file=${dir}/tokens.csv`, ...args],
      'server',
    ),
    { stdio: 'ignore' },
  )
  // As the administrator: with AlwaysAllow the reference turns anonymous requests off.
  for (let i = 0; ; i++) {
    try {
      await admin(port, dir, 'GET', '/readyz')
      break
    } catch (err) {
      if (i > 1800) throw err
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await admin(port, dir, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench' }, data: { key: 'value' } })
  await admin(port, dir, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bench-view' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bench' }],
  })
  return { port, child }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dir = mkdtempSync(join(tmpdir(), 'client-bench-'))
writeFileSync(`${dir}/tokens.csv`, `${TOKEN},bench,bench-uid\n`)
const children = []
try {
  const rbac = await startServer(dir, 'data-rbac', [])
  children.push(rbac.child)
  const allow = await startServer(dir, 'data-allow', ['--authorization-mode=AlwaysAllow'])
  children.push(allow.child)
  const barePort = await freePort()
  const bareScript = fileURLToPath(new URL('./support/bare-https.js', import.meta.url))
  const bare = spawn(...pinned(process.execPath, [bareScript, String(barePort), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], 'server'), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  children.push(bare)
  await new Promise((resolve) => bare.once('message', resolve))
  // The same bare server sending /readyz's response headers: what answering as the reference does costs Node alone.
  const bareHeadersPort = await freePort()
  const bareHeaders = spawn(...pinned(process.execPath, [bareScript, String(bareHeadersPort), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`, 'headers'], 'server'), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  children.push(bareHeaders)
  await new Promise((resolve) => bareHeaders.once('message', resolve))

  const auth = [`Authorization: Bearer ${TOKEN}`]
  const object = '/api/v1/namespaces/default/configmaps/bench'
  const subjects = [
    ['bare Node HTTPS `ok`', (d) => wrk(`https://127.0.0.1:${barePort}/`, [], bare.pid, d)],
    ['`/readyz`', (d) => wrk(`https://127.0.0.1:${rbac.port}/readyz`, [], rbac.child.pid, d)],
    ['`/readyz?verbose`', (d) => wrk(`https://127.0.0.1:${rbac.port}/readyz?verbose`, [], rbac.child.pid, d)],
    ['GET one ConfigMap (RBAC)', (d) => wrk(`https://127.0.0.1:${rbac.port}${object}`, auth, rbac.child.pid, d)],
    ['GET one ConfigMap (AlwaysAllow)', (d) => wrk(`https://127.0.0.1:${allow.port}${object}`, auth, allow.child.pid, d)],
    ["bare Node HTTPS `ok` with /readyz's response headers", (d) => wrk(`https://127.0.0.1:${bareHeadersPort}/`, [], bareHeaders.pid, d)],
  ]
  // Let the servers finish their start-up work (bootstrap objects, caches), then warm every
  // subject up alike (bare included) for warmupSeconds, not measured: the JIT's warm-up.
  await new Promise((r) => setTimeout(r, 3000))
  for (const [, run] of subjects) run(warmupSeconds)
  const results = subjects.map(() => [])
  for (let r = 0; r < rounds; r++) subjects.forEach(([, run], i) => results[i].push(run()))
  const figures = results.map((runs) => {
    const m = median(runs.map((x) => x.rps))
    return { ...runs.find((x) => x.rps === m), cpuUs: median(runs.map((x) => x.cpuUs)), errors: runs.reduce((n, x) => n + x.errors, 0) }
  })
  const base = figures[0]
  console.log(`wrk -c16, ${rounds} interleaved rounds of ${seconds} s after ${warmupSeconds} s of warm-up per subject, medians; ${pinningNote()}\n`)
  console.log(`| request | requests/s | p50 | p99 | non-2xx | × bare (throughput) | server CPU µs/request | × bare (CPU) |`)
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  subjects.forEach(([name], i) => {
    const f = figures[i]
    console.log(`| ${name} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.errors} | ${(f.rps / base.rps).toFixed(2)} | ${f.cpuUs.toFixed(0)} | ${(base.cpuUs / f.cpuUs).toFixed(2)} |`)
  })
  // Ratios of throughput and of CPU per request (bare's CPU per request over the subject's: the
  // throughput ratio a server would reach with the machine to itself).
  const goal = (what, i, j, min) => {
    const thr = figures[i].rps / figures[j].rps
    const cpu = figures[j].cpuUs / figures[i].cpuUs
    console.log(`${what}: ${thr.toFixed(2)} by throughput, ${cpu.toFixed(2)} by CPU per request (goal: at least ${min}) ${Math.max(thr, cpu) >= min ? (Math.min(thr, cpu) >= min ? 'MET' : 'MET by CPU only') : 'NOT MET'}`)
  }
  console.log('')
  goal('/readyz / bare Node HTTPS', 1, 0, 0.7)
  goal('GET one object / bare Node HTTPS', 3, 0, 0.4)
  goal('GET with RBAC / AlwaysAllow', 3, 4, 0.8)
  goal('/readyz / bare Node HTTPS with the same response headers (no goal of its own)', 1, 5, 0.7)
  // The one-table report (bench/run.js): the throughput ratio is the figure; the CPU ratio is in the subject.
  const row = (subject, i, j, baseline, goal) => ({
    subject: `${subject} (CPU ratio ${(figures[j].cpuUs / figures[i].cpuUs).toFixed(2)}x)`,
    figure: figures[i].rps,
    unit: 'requests/s',
    baseline,
    baselineFigure: figures[j].rps,
    ...(goal ? { goal, met: meets(figures[i].rps / figures[j].rps, goal.replace('x', '')) } : {}),
  })
  report(import.meta.url, [
    row('`/readyz`, wrk -c16', 1, 0, 'bare Node HTTPS `ok`', '≥ 0.7x'),
    row('GET one ConfigMap, wrk -c16', 3, 0, 'bare Node HTTPS `ok`', '≥ 0.4x'),
    // The security layers a GET crosses: authorization (Node,RBAC, the default, against AlwaysAllow); the admission
    // plugins run on writes only, and audit has no backend yet (no --audit-* option is built), so both are the same on either server.
    row("bare Node HTTPS `ok` with /readyz's six response headers", 5, 0, 'bare Node HTTPS `ok`'),
    row('`/readyz`, wrk -c16', 1, 5, "bare Node HTTPS `ok` with /readyz's response headers"),
    row('GET one ConfigMap with the security layers on (Node,RBAC; admission on writes only; audit not built)', 3, 4, 'the same with AlwaysAllow', '≥ 0.8x'),
  ])
} finally {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
