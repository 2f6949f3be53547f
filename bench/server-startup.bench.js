// Start-up to ready of `client server start`: the time from spawning the process to the first
// 200 from /readyz, on a first start (certificates, service-account keys and the administrator's
// kubeconfig generated) and on a start with all of them present. Baseline: the same spawn of a
// bare Node HTTPS server (the floor of any Node server), in the same run, interleaved.
// Goals: ready within 0.5 s with certificates present and within 1 s on a first start.
// Not pinned to CPUs by default: a start uses several threads (V8's compiler and GC helpers,
// libuv's pool generating the first start's keys and syncing the store), which one pinned CPU
// would serialise for the server and hardly at all for the bare baseline; BENCH_STARTUP_PIN=1
// pins both to the 'server' CPUs (bench/support/cpu-pin.js). BENCH_RUNS rounds (default 9),
// each spawning the three in turn; the medians are reported.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './support/net.js'
import { report } from './support/report.js'
import { pinned, pinning, pinningNote } from './support/cpu-pin.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const bareScript = fileURLToPath(new URL('./support/bare-https.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 9)
const pin = process.env.BENCH_STARTUP_PIN === '1' && pinning
/** The spawn of `node args`, pinned to the 'server' CPUs with BENCH_STARTUP_PIN=1. */
const nodeSpawn = (args, options) => {
  const [command, argv] = pin ? pinned(process.execPath, args, 'server') : [process.execPath, args]
  return spawn(command, argv, options)
}
console.log(`server start-up: ${runs} rounds; ${pin ? pinningNote() : 'processes not pinned to CPUs (BENCH_STARTUP_PIN=1 pins the server and the baseline)'}; load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)

/** Polls `url` every 10 ms; resolves when it answers 200. */
function readyAt(url, child) {
  return new Promise((resolve, reject) => {
    let done = false
    child.once('exit', (code) => {
      if (!done) reject(new Error(`the server exited with ${code} before it was ready`))
    })
    const attempt = () => {
      const req = request(url, { rejectUnauthorized: false, agent: false }, (res) => {
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

async function timeServer(dir, port) {
  const start = performance.now()
  const child = nodeSpawn([bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${dir}/kubeconfig`], { stdio: 'ignore' })
  try {
    return (await readyAt(`https://127.0.0.1:${port}/readyz`, child)) - start
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}

async function timeBare(dir, port) {
  const start = performance.now()
  const child = nodeSpawn([bareScript, String(port), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    return (await readyAt(`https://127.0.0.1:${port}/`, child)) - start
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}

const first = []
const present = []
const bare = []
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-startup-'))
  try {
    first.push(await timeServer(dir, await freePort()))
    present.push(await timeServer(dir, await freePort()))
    bare.push(await timeBare(dir, await freePort()))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const floor = median(bare)
console.log(`| start | median ms | min ms | max ms | × bare Node HTTPS | goal |`)
console.log(`|---|---:|---:|---:|---:|---|`)
const rows = [
  ['bare Node HTTPS server (baseline)', bare, undefined],
  ['certificates present', present, 500],
  ['first start (generates certificates, keys, kubeconfig)', first, 1000],
]
for (const [name, xs, goal] of rows) {
  const m = median(xs)
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(m / floor).toFixed(2)} | ${goal ? `≤ ${goal} ms ${m <= goal ? 'MET' : 'NOT MET'}` : ''} |`)
}
report(
  import.meta.url,
  rows.slice(1).map(([name, xs, goal]) => ({
    subject: `server start to ready: ${name}`,
    figure: median(xs),
    unit: 'ms',
    baseline: 'bare Node HTTPS server',
    baselineFigure: floor,
    goal: `≤ ${goal} ms`,
    met: median(xs) <= goal,
  })),
)
