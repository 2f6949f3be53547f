// Reaction times the tests used to bound by the wall clock (they now assert only the behaviour,
// which holds on a loaded machine too): how fast the health endpoints answer when checks run
// concurrently, and how fast readyz turns 500 after SIGTERM. Each figure is printed with its
// baseline measured in the same run.
//   1. /readyz?verbose with three checks of 200, 100 and 10 ms, against the longest check alone
//      (concurrent checks: the answer takes about the longest check, not their sum).
//      Goal: under 1.5x the longest check.
//   2. The built server after SIGTERM (--shutdown-delay-duration=30s): the first /readyz that
//      answers 500, against a plain /readyz round trip just before. Goal: under 100 ms.
//   3. `client health check --wait` started while the server is still starting: how long after
//      /readyz first answers 200 the command exits, against its --interval (500 ms) plus the
//      start-up of `client --version` measured in the same run (the server may be ready before
//      the command has started). Goal: under 1 s beyond that start-up.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from './support/net.js'
import { report } from './support/report.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.BENCH_RUNS ?? 20)
const { healthHandlers } = await import(new URL('../dist/server/health/handler.js', import.meta.url))
const { HealthRegistry } = await import(new URL('../dist/server/health/registry.js', import.meta.url))

const rows = []
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const delayed = (name, ms) => ({ name, check: () => sleep(ms) })

/** Serves the health handlers of `checks` on a loopback port; resolves { get(path), close() }. */
async function healthServer(checks) {
  const registry = new HealthRegistry()
  for (const c of checks) registry.addToAll(c)
  const handlers = healthHandlers(registry)
  const server = createServer((req, res) => void handlers.handle(req, res, new URL(req.url ?? '/', 'http://127.0.0.1')))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  const get = (path) =>
    new Promise((resolve, reject) => {
      const started = performance.now()
      const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume()
        res.on('end', () => resolve(performance.now() - started))
      })
      req.on('error', reject)
      req.end()
    })
  return { get, close: () => new Promise((resolve) => server.close(resolve)) }
}

async function concurrentChecks() {
  const three = await healthServer([delayed('slow', 200), delayed('medium', 100), delayed('fast', 10)])
  const longest = await healthServer([delayed('slow', 200)])
  const a = []
  const b = []
  try {
    // Interleaved, so that machine load affects both alike.
    for (let i = 0; i < runs; i++) {
      a.push(await three.get('/readyz?verbose'))
      b.push(await longest.get('/readyz?verbose'))
    }
  } finally {
    await three.close()
    await longest.close()
  }
  const ratio = median(a) / median(b)
  console.log('| /readyz?verbose with | median ms | min ms |')
  console.log('|---|---:|---:|')
  console.log(`| checks of 200, 100, 10 ms | ${median(a).toFixed(1)} | ${Math.min(...a).toFixed(1)} |`)
  console.log(`| the 200 ms check alone (baseline) | ${median(b).toFixed(1)} | ${Math.min(...b).toFixed(1)} |`)
  console.log(`\nconcurrent checks: ${ratio.toFixed(2)}x the longest check (goal: under 1.5x; one after another would be 1.55x) ${ratio < 1.5 ? 'MET' : 'NOT MET'}\n`)
  rows.push({ subject: '`/readyz?verbose` with checks of 200, 100 and 10 ms', figure: median(a), unit: 'ms', baseline: 'the 200 ms check alone', baselineFigure: median(b), goal: '< 1.5x', met: ratio < 1.5 })
}

function status(url) {
  return new Promise((resolve) => {
    const started = performance.now()
    const req = request(url, { rejectUnauthorized: false, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }))
    })
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }))
    req.end()
  })
}

async function readyzAfterSigterm() {
  const samples = []
  const baselines = []
  for (let i = 0; i < Math.min(runs, 5); i++) {
    const dir = mkdtempSync(join(tmpdir(), 'client-bench-'))
    const port = await freePort()
    const server = spawn(process.execPath, [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, '--shutdown-delay-duration=30s'], { stdio: 'ignore' })
    try {
      const url = `https://127.0.0.1:${port}/readyz`
      await waitFor(url, 200)
      baselines.push((await status(url)).ms)
      const signalled = performance.now()
      server.kill('SIGTERM')
      for (;;) {
        const r = await status(url)
        if (r.status === 500) break
        if (performance.now() - signalled > 30_000) throw new Error('readyz never failed after SIGTERM')
      }
      samples.push(performance.now() - signalled)
    } finally {
      server.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
  }
  console.log('| after SIGTERM | median ms | max ms |')
  console.log('|---|---:|---:|')
  console.log(`| first /readyz answering 500 | ${median(samples).toFixed(1)} | ${Math.max(...samples).toFixed(1)} |`)
  console.log(`| a /readyz round trip before (baseline) | ${median(baselines).toFixed(1)} | ${Math.max(...baselines).toFixed(1)} |`)
  const m = median(samples)
  console.log(`\nreadyz after SIGTERM: ${m.toFixed(1)} ms, ${(m / median(baselines)).toFixed(2)}x a round trip (goal: under 100 ms) ${m < 100 ? 'MET' : 'NOT MET'}`)
  rows.push({ subject: 'first `/readyz` answering 500 after SIGTERM', figure: m, unit: 'ms', baseline: 'a `/readyz` round trip', baselineFigure: median(baselines), goal: '< 100 ms', met: m < 100 })
}

async function waitExitsAfterReady() {
  const lags = []
  const startups = []
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const t = performance.now()
    await new Promise((resolve) => spawn(process.execPath, [bin, '--version'], { stdio: 'ignore' }).once('exit', resolve))
    startups.push(performance.now() - t)
    const dir = mkdtempSync(join(tmpdir(), 'client-bench-'))
    const port = await freePort()
    const server = spawn(process.execPath, [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`], { stdio: 'ignore' })
    try {
      const url = `https://127.0.0.1:${port}/readyz`
      // The CA exists once the server listens; the check starts while post-start hooks still run.
      while ((await status(url)).status === 0) await sleep(50)
      const check = spawn(process.execPath, [bin, 'health', 'check', '--wait', '--timeout', '60s', `--server=https://127.0.0.1:${port}`, `--certificate-authority=${dir}/certs/ca.crt`], { stdio: 'ignore' })
      const exited = new Promise((resolve) => check.once('exit', () => resolve(performance.now())))
      let readyAt
      while (readyAt === undefined) {
        if ((await status(url)).status === 200) readyAt = performance.now()
        else await sleep(20)
      }
      lags.push((await exited) - readyAt)
    } finally {
      server.kill('SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const m = median(lags)
  const base = median(startups)
  console.log('\n| health check --wait | median ms | max ms |')
  console.log('|---|---:|---:|')
  console.log(`| exit after /readyz first answered 200 | ${m.toFixed(1)} | ${Math.max(...lags).toFixed(1)} |`)
  console.log(`| \`client --version\` start-up (baseline) | ${base.toFixed(1)} | ${Math.max(...startups).toFixed(1)} |`)
  const beyond = m - base
  console.log(`\nhealth check --wait: exits ${m.toFixed(0)} ms after the server is ready, ${beyond.toFixed(0)} ms beyond a start-up, ${(m / base).toFixed(2)}x a start-up (goal: under 1 s beyond it) ${beyond < 1000 ? 'MET' : 'NOT MET'}`)
  rows.push({ subject: '`health check --wait` exit after the server is ready', figure: m, unit: 'ms', baseline: '`client --version` start-up', baselineFigure: base, goal: '< 1 s beyond the start-up', met: beyond < 1000 })
}

await concurrentChecks()
await readyzAfterSigterm()
await waitExitsAfterReady()
report(import.meta.url, rows)
