// Where a create's time goes on the embedded store (issue 18, item 2): wrk with 8 keep-alive
// clients creating small ConfigMaps over HTTPS, as in the api-path bench, against a server that
// records each create and each WAL sync (bench/support/create-budget.cjs, preloaded). Rows: the
// mean latency's parts (before the request's own WAL sync, waiting for a sync already running,
// the own sync, after it to the response) against the mean latency, and creates per sync.
// With 8 clients and a durable commit per write, throughput is 8 / latency: these rows say how
// much of it the disk's syncs take, which no change to the request path can remove.
// Needs the build and wrk.   BENCH_SECONDS (per round, default 3), BENCH_ROUNDS (default 3)
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { report } from './support/report.js'
import { ADMIN_TOKEN, startServer } from './support/server.js'
import { toolCommand } from './support/tools.js'
import { requireWrk } from './support/wrk.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const CLIENTS = 8
requireWrk()

const scratch = mkdtempSync(join(tmpdir(), 'client-bench-create-budget-'))
const out = join(scratch, 'budget.json')
const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'c-', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } }
writeFileSync(join(scratch, 'post.lua'), `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify(body)}'\n`)

/** The server's budget of the creates since the previous call. */
async function budget(pid) {
  rmSync(out, { force: true })
  process.kill(pid, 'SIGUSR2')
  for (let i = 0; i < 100; i++) {
    try {
      return JSON.parse(readFileSync(out, 'utf8'))
    } catch {
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error('the server wrote no budget: is bench/support/create-budget.cjs preloaded?')
}

const preload = fileURLToPath(new URL('./support/create-budget.cjs', import.meta.url))
const savedOptions = process.env.NODE_OPTIONS
process.env.NODE_OPTIONS = `${savedOptions ?? ''} --require ${preload}`.trim()
process.env.CREATE_BUDGET_OUT = out
let server
try {
  server = await startServer(join(scratch, 'server'))
} finally {
  if (savedOptions === undefined) delete process.env.NODE_OPTIONS
  else process.env.NODE_OPTIONS = savedOptions
}
try {
  await server.admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } } })
  const wrk = (duration) => {
    const run = spawnSync(toolCommand('wrk'), ['-t1', `-c${CLIENTS}`, `-d${duration}s`, '-H', `Authorization: Bearer ${ADMIN_TOKEN}`, '-s', join(scratch, 'post.lua'), `${server.url}/api/v1/namespaces/bench/configmaps`], { encoding: 'utf8' })
    if (run.status !== 0) throw new Error(`wrk exited ${run.status}: ${run.stderr}`)
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? 0)
    if (non2xx > 0) throw new Error(`wrk: ${non2xx} answers were not 2xx; the figures would measure errors`)
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  }
  wrk(1)
  await budget(server.child.pid)
  const runs = []
  for (let round = 1; round <= rounds; round++) {
    const rps = wrk(seconds)
    const b = await budget(server.child.pid)
    if (b.creates === 0 || b.syncs === 0) throw new Error(`no creates or no WAL syncs recorded: ${JSON.stringify(b)}`)
    runs.push({ rps, ...b })
    console.error(`  round ${round}: ${Math.round(rps)} creates/s, mean ${Math.round(b.meanLatencyUs)} µs = before the own sync ${Math.round(b.beforeSyncUs)} (waiting for a running sync ${Math.round(b.waitingForRunningSyncUs)}) + own sync ${Math.round(b.ownSyncUs)} + after ${Math.round(b.afterSyncUs)}; ${(b.creates / b.syncs).toFixed(2)} creates per sync of ${Math.round(b.meanSyncUs)} µs`)
  }
  const median = (f) => runs.map(f).sort((a, b) => a - b)[Math.floor(runs.length / 2)]
  const latency = median((r) => r.meanLatencyUs)
  const part = (subject, f) => ({ subject, figure: median(f), unit: 'µs', baseline: 'mean create latency', baselineFigure: latency })
  report(import.meta.url, [
    part(`create, ${CLIENTS} clients, embedded store: before its WAL sync (handler, queue), not waiting for a running sync`, (r) => r.beforeSyncUs),
    part(`the same: waiting for the WAL sync already running (group commit)`, (r) => r.waitingForRunningSyncUs),
    part(`the same: its own WAL sync (fdatasync)`, (r) => r.ownSyncUs),
    part(`the same: from the sync's end to the response`, (r) => r.afterSyncUs),
    { subject: `the same: creates per WAL sync`, figure: median((r) => r.creates / r.syncs), unit: 'creates', baseline: 'clients', baselineFigure: CLIENTS },
  ])
} finally {
  await server.stop()
  rmSync(scratch, { recursive: true, force: true })
}
