// /readyz and /readyz?verbose throughput and latency of `client server start`, against a bare
// Node HTTPS server answering `ok` with the same certificate, measured in the same run with
// wrk on loopback. Goal: /readyz at least 0.7 of the bare server.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from './support/net.js'
import { meets, report } from './support/report.js'
import { requireWrk, wrk as runWrk } from './support/wrk.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
requireWrk()
// The status endpoints answer anonymous requests (system:public-info-viewer); wrk fails the
// bench on any answer that is not 2xx.
const wrk = (url) => runWrk(url, { seconds })

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
  console.log('| endpoint | requests/s | p50 | p99 | × bare |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [name, r] of [['bare Node HTTPS `ok`', base], ['`/readyz`', ready], ['`/readyz?verbose`', verbose]]) {
    console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${(r.rps / base.rps).toFixed(2)} |`)
  }
  const ratio = ready.rps / base.rps
  console.log(`\n/readyz throughput: ${ratio.toFixed(2)} of the bare server (goal: at least 0.7) ${ratio >= 0.7 ? 'MET' : 'NOT MET'}`)
  const row = (subject, r, goal) => ({ subject, figure: r.rps, unit: 'requests/s', baseline: 'bare Node HTTPS `ok`', baselineFigure: base.rps, goal, met: goal ? meets(r.rps / base.rps, goal) : undefined })
  report(import.meta.url, [row('`/readyz`, wrk -c16', ready, '≥ 0.7x'), row('`/readyz?verbose`, wrk -c16', verbose)])
} finally {
  server.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
}
