// Audit's cost on the request path (issue 33): GET of one small ConfigMap with wrk over HTTPS
// keep-alive (16 connections) on servers that differ only in audit: off (no policy), then a
// policy auditing config maps at Metadata or RequestResponse, written by the log backend to a
// file in blocking mode (each line written before the request goes on) or batch mode (buffered,
// written in batches). Rounds are interleaved and each figure is the median of its rounds, as in
// readyz.bench.js; the servers are pinned to the same CPUs and wrk to the others.
// Goal: batch at Metadata ≥ 0.8 of audit off. Needs wrk.   BENCH_SECONDS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS
//   BENCH_AUDIT_ONLY=off,metadata-batch   only these variants (names as in `variants` below)
//   BENCH_AUDIT_PROFILE=dir                a V8 CPU profile of each server into dir/<variant>/ (node
//                                          --cpu-prof; stopped with SIGTERM, a SIGKILLed process writes
//                                          none), to compare with bench/support/cpu-profile-diff.js
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pinned, pinningNote } from './support/cpu-pin.js'
import { freePort } from './support/net.js'
import { meets, report } from './support/report.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 6)
const missing = whyMissing('wrk')
if (missing) {
  console.error(missing)
  process.exit(1)
}
const WRK = toolCommand('wrk')
const TOKEN = 'bench-token-0123456789'
const only = process.env.BENCH_AUDIT_ONLY?.split(',')
const profileDir = process.env.BENCH_AUDIT_PROFILE ? resolve(process.env.BENCH_AUDIT_PROFILE) : undefined

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

function wrk(url, pid, duration = seconds) {
  const cpuBefore = cpuSeconds(pid)
  const run = spawnSync(...pinned(WRK, ['-t1', '-c16', `-d${duration}s`, '--latency', '-H', `Authorization: Bearer ${TOKEN}`, url], 'load'), { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? '0')
  const requests = Number(/(\d+) requests in/.exec(run.stdout)?.[1])
  return { rps, p99, errors, cpuUs: ((cpuSeconds(pid) - cpuBefore) / requests) * 1e6 }
}

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

/** A server auditing config maps at `level` (none: audit off) in `mode`. */
async function startServer(dir, name, level, mode) {
  const port = await freePort()
  const audit = level
    ? [`--audit-policy-file=${dir}/policy-${level}.yaml`, `--audit-log-path=${dir}/${name}.log`, `--audit-log-mode=${mode}`, ...(mode === 'batch' ? ['--audit-log-batch-max-size=400', '--audit-log-batch-max-wait=1s'] : [])]
    : []
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${name}`] : []
  const args = [...profile, bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data-${name}`, `--write-kubeconfig=${dir}/kubeconfig`, `--token-auth-file=${dir}/tokens.csv`, '--authorization-mode=AlwaysAllow', ...audit]
  const child = spawn(...pinned(process.execPath, args, 'server'), { stdio: 'ignore' })
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
  return { port, child, log: level ? `${dir}/${name}.log` : undefined }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const dir = mkdtempSync(join(tmpdir(), 'client-bench-audit-'))
writeFileSync(`${dir}/tokens.csv`, `${TOKEN},bench,bench-uid\n`)
for (const level of ['Metadata', 'RequestResponse']) {
  writeFileSync(`${dir}/policy-${level}.yaml`, `apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: ${level}\n  resources:\n  - group: ""\n    resources: ["configmaps"]\n`)
}
const children = []
try {
  const variants = [
    ['audit off', 'off'],
    ['Metadata, blocking', 'metadata-blocking', 'Metadata', 'blocking'],
    ['Metadata, batch', 'metadata-batch', 'Metadata', 'batch'],
    ['RequestResponse, blocking', 'rr-blocking', 'RequestResponse', 'blocking'],
    ['RequestResponse, batch', 'rr-batch', 'RequestResponse', 'batch'],
  ].filter(([, name], i) => i === 0 || !only || only.includes(name))
  const servers = []
  for (const [, name, level, mode] of variants) {
    const server = await startServer(dir, name, level, mode)
    children.push(server.child)
    servers.push(server)
  }
  const object = '/api/v1/namespaces/default/configmaps/bench'
  const subjects = servers.map((s, i) => [variants[i][0], (d) => wrk(`https://127.0.0.1:${s.port}${object}`, s.child.pid, d)])
  await new Promise((r) => setTimeout(r, 3000))
  for (const [, run] of subjects) run(warmupSeconds)
  const results = subjects.map(() => [])
  for (let r = 0; r < rounds; r++) subjects.forEach(([, run], i) => results[i].push(run()))
  const figures = results.map((runs) => {
    const m = median(runs.map((x) => x.rps))
    return { ...runs.find((x) => x.rps === m), cpuUs: median(runs.map((x) => x.cpuUs)), errors: runs.reduce((n, x) => n + x.errors, 0) }
  })
  const off = figures[0]
  console.log(`wrk -c16 GET one ConfigMap, ${rounds} interleaved rounds of ${seconds} s after ${warmupSeconds} s of warm-up, medians; ${pinningNote()}\n`)
  console.log('| audit | requests/s | p99 | non-2xx | × off (throughput) | server CPU µs/request | × off (CPU) | log written |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  subjects.forEach(([name], i) => {
    const f = figures[i]
    const log = servers[i].log ? `${(statSync(servers[i].log).size / 1e6).toFixed(0)} MB` : ''
    console.log(`| ${name} | ${f.rps.toFixed(0)} | ${f.p99} | ${f.errors} | ${(f.rps / off.rps).toFixed(2)} | ${f.cpuUs.toFixed(0)} | ${(off.cpuUs / f.cpuUs).toFixed(2)} | ${log} |`)
  })
  const row = (i, goal, readme) => ({
    subject: `GET one ConfigMap, audit ${variants[i][0]} to a log file, wrk -c16 (CPU ratio ${(off.cpuUs / figures[i].cpuUs).toFixed(2)}x)`,
    figure: figures[i].rps,
    unit: 'requests/s',
    baseline: 'the same with audit off',
    baselineFigure: off.rps,
    ...(goal ? { goal, met: meets(figures[i].rps / off.rps, goal.replace('x', '')) } : {}),
    ...(readme ? { readme } : {}),
  })
  if (!only) report(import.meta.url, [row(1), row(2, '≥ 0.8x', 'audit (batch, Metadata) against audit off'), row(3), row(4)])
} finally {
  for (const child of children) child.kill(profileDir ? 'SIGTERM' : 'SIGKILL')
  if (profileDir) await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : undefined)))
  rmSync(dir, { recursive: true, force: true })
}
