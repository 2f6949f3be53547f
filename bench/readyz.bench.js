// /readyz and /readyz?verbose throughput and latency of `client server start`, against a bare
// Node HTTPS server answering `ok` with the same certificate, measured in the same run with
// wrk on loopback. Goal: /readyz at least 0.7 of the bare server.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from './support/net.js'
import { toolCommand, whyMissing } from './support/tools.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const missing = whyMissing('wrk')
if (missing) {
  console.error(missing)
  process.exit(1)
}
const WRK = toolCommand('wrk')

function wrk(url) {
  const run = spawnSync(WRK, ['-t1', '-c16', `-d${seconds}s`, '--latency', url], { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p50 = /50%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? '0'
  return { rps, p50, p99, errors }
}

const dir = mkdtempSync(join(tmpdir(), 'client-bench-'))
const port = await freePort()
const server = spawn(process.execPath, [bin, 'server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`], { stdio: 'ignore' })
try {
  await waitFor(`https://127.0.0.1:${port}/readyz`, 200)
  const barePort = await freePort()
  const bareScript = fileURLToPath(new URL('./support/bare-https.js', import.meta.url))
  const bare = spawn(process.execPath, [bareScript, String(barePort), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  await new Promise((resolve) => bare.once('message', resolve))
  const base = wrk(`https://127.0.0.1:${barePort}/`)
  bare.kill('SIGKILL')
  const ready = wrk(`https://127.0.0.1:${port}/readyz`)
  const verbose = wrk(`https://127.0.0.1:${port}/readyz?verbose`)
  console.log('| endpoint | requests/s | p50 | p99 | non-2xx | × bare |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const [name, r] of [['bare Node HTTPS `ok`', base], ['`/readyz`', ready], ['`/readyz?verbose`', verbose]]) {
    console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${(r.rps / base.rps).toFixed(2)} |`)
  }
  const ratio = ready.rps / base.rps
  console.log(`\n/readyz throughput: ${ratio.toFixed(2)} of the bare server (goal: at least 0.7) ${ratio >= 0.7 ? 'MET' : 'NOT MET'}`)
} finally {
  server.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
