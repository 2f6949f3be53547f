// Start-up to ready of `client server start`: the time from spawning the process to the first
// 200 from /readyz, on a first start (certificates, service-account keys and the administrator's
// kubeconfig generated) and on a start with all of them present. Baseline: the same spawn of a
// bare Node HTTPS server (the floor of any Node server), in the same run, interleaved.
// Goals: ready within 0.5 s with certificates present and within 1 s on a first start.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './support/net.js'
import { report } from './support/report.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const bareScript = fileURLToPath(new URL('./support/bare-https.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 5)

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
  const child = spawn(process.execPath, [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--write-kubeconfig=${dir}/kubeconfig`], { stdio: 'ignore' })
  try {
    return (await readyAt(`https://127.0.0.1:${port}/readyz`, child)) - start
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}

async function timeBare(dir, port) {
  const start = performance.now()
  const child = spawn(process.execPath, [bareScript, String(port), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
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
console.log(`| start | median ms | min ms | × bare Node HTTPS | goal |`)
console.log(`|---|---:|---:|---:|---|`)
const rows = [
  ['bare Node HTTPS server (baseline)', bare, undefined],
  ['certificates present', present, 500],
  ['first start (generates certificates, keys, kubeconfig)', first, 1000],
]
for (const [name, xs, goal] of rows) {
  const m = median(xs)
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${(m / floor).toFixed(2)} | ${goal ? `≤ ${goal} ms ${m <= goal ? 'MET' : 'NOT MET'}` : ''} |`)
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
