// The server's CPU per create, A/B across builds: the figure that barely moves with other load
// on a shared machine (throughput does). Each build gets its own server (and, on etcd, its own
// etcd), all started at once; after a warm-up of every server, rounds of wrk creates (8
// keep-alive clients, a small ConfigMap with generateName, as the api-path bench) go to each
// server in turn, the order alternating per round, and the server's utime + stime from
// /proc/<pid>/stat over the round is divided by the creates wrk completed. The etcd's CPU per
// create is printed beside it (what the server's store work costs etcd).
//   node bench/support/create-cpu.js <build root>...     (default: this worktree)
// A build root holds bin/run.js and dist/ (a copy of a worktree's build). Environment:
//   CREATE_CPU_STORE=embedded|etcd (default embedded), CREATE_CPU_ROUNDS (default 6),
//   CREATE_CPU_SECONDS (per round, default 3), CREATE_CPU_WARMUP (seconds per server, default 6),
//   CREATE_CPU_PROFILE=<dir>: run with --profiling and write one .cpuprofile per build, taken
//   over CREATE_CPU_SECONDS of creates after the warm-up, instead of the rounds.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEtcd } from './etcd.js'
import { ADMIN_TOKEN, startServer } from './server.js'
import { toolCommand } from './tools.js'
import { requireWrk } from './wrk.js'

const store = process.env.CREATE_CPU_STORE ?? 'embedded'
const rounds = Number(process.env.CREATE_CPU_ROUNDS ?? 6)
const seconds = Number(process.env.CREATE_CPU_SECONDS ?? 3)
const warmup = Number(process.env.CREATE_CPU_WARMUP ?? 6)
const profileDir = process.env.CREATE_CPU_PROFILE
const CLIENTS = 8
requireWrk()

const here = fileURLToPath(new URL('../..', import.meta.url))
const roots = process.argv.slice(2).map((r) => resolve(r))
if (roots.length === 0) roots.push(here)

const scratch = mkdtempSync(join(tmpdir(), 'client-bench-create-cpu-'))
const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'c-', labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } }
writeFileSync(join(scratch, 'post.lua'), `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify(body)}'\n`)

/** utime + stime of a process, in µs. */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
}

/** wrk creates for `duration` s against `server`: the number of creates, failing on any non-2xx. */
function wrkCreates(server, duration) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(toolCommand('wrk'), ['-t1', `-c${CLIENTS}`, `-d${duration}s`, '-H', `Authorization: Bearer ${ADMIN_TOKEN}`, '-s', join(scratch, 'post.lua'), `${server.url}/api/v1/namespaces/bench/configmaps`])
    let out = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (out += c))
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${out}`))
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
      if (non2xx > 0) return reject(new Error(`wrk: ${non2xx} answers were not 2xx`))
      resolvePromise(Number(/(\d+) requests in/.exec(out)[1]))
    })
  })
}

/** etcd's count of handled calls by method (its own metrics): { Range, Txn, ... }. */
async function etcdCalls(etcd) {
  const text = await (await fetch(`${etcd.clientUrl}/metrics`)).text()
  const calls = {}
  for (const m of text.matchAll(/^grpc_server_handled_total\{[^}]*grpc_method="(\w+)"[^}]*\} (\d+)/gm)) calls[m[1]] = (calls[m[1]] ?? 0) + Number(m[2])
  return calls
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sides = []
try {
  for (const [i, root] of roots.entries()) {
    const etcd = store === 'etcd' ? await startEtcd() : undefined
    const args = etcd ? [`--store-servers=${etcd.clientUrl}`] : []
    if (profileDir) args.push('--profiling')
    const server = await startServer(join(scratch, `server-${i}`), args, { runScript: join(root, 'bin/run.js') })
    sides.push({ root, etcd, server, perCreate: [], etcdPerCreate: [], rates: [], rangesPerSecond: [], txnsPerCreate: [] })
    await server.admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } } })
  }
  for (const side of sides) await wrkCreates(side.server, warmup)
  if (profileDir) {
    mkdirSync(profileDir, { recursive: true })
    for (const [i, side] of sides.entries()) {
      const load = wrkCreates(side.server, seconds + 1)
      const profile = await side.server.admin('GET', `/debug/pprof/profile?seconds=${seconds}`)
      const creates = await load
      writeFileSync(join(profileDir, `${i}.cpuprofile`), profile)
      console.log(`${side.root}: ${join(profileDir, `${i}.cpuprofile`)} (${(creates / (seconds + 1)).toFixed(0)} creates/s)`)
    }
  } else {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? sides : [...sides].reverse()
      for (const side of order) {
        const pid = side.server.child.pid
        const cpu0 = cpuMicros(pid)
        const etcd0 = side.etcd ? cpuMicros(side.etcd.pid) : 0
        const calls0 = side.etcd ? await etcdCalls(side.etcd) : undefined
        const started = Date.now()
        const creates = await wrkCreates(side.server, seconds)
        side.perCreate.push((cpuMicros(pid) - cpu0) / creates)
        if (side.etcd) {
          side.etcdPerCreate.push((cpuMicros(side.etcd.pid) - etcd0) / creates)
          const calls = await etcdCalls(side.etcd)
          side.rangesPerSecond.push(((calls.Range ?? 0) - (calls0.Range ?? 0)) / ((Date.now() - started) / 1000))
          side.txnsPerCreate.push(((calls.Txn ?? 0) - (calls0.Txn ?? 0)) / creates)
        }
        side.rates.push(creates / seconds)
      }
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
    console.log(`store ${store}, ${rounds} rounds of ${seconds} s, ${CLIENTS} clients, load average ${load}`)
    for (const side of sides) {
      const fmt = (xs) => xs.map((x) => x.toFixed(0)).join(' ')
      console.log(`${side.root}\n  server µs/create ${fmt(side.perCreate)}  median ${median(side.perCreate).toFixed(0)}`)
      if (side.etcd) console.log(`  etcd µs/create ${fmt(side.etcdPerCreate)}  median ${median(side.etcdPerCreate).toFixed(0)}`)
      if (side.etcd) console.log(`  etcd Range calls/s ${side.rangesPerSecond.map((x) => x.toFixed(1)).join(' ')}; Txn per create ${side.txnsPerCreate.map((x) => x.toFixed(3)).join(' ')}`)
      console.log(`  creates/s ${fmt(side.rates)}  median ${median(side.rates).toFixed(0)}`)
    }
    if (sides.length === 2) {
      const ratios = sides[0].perCreate.map((a, k) => sides[1].perCreate[k] / a)
      console.log(`B/A per round ${ratios.map((x) => x.toFixed(3)).join(' ')}  median ${median(ratios).toFixed(3)}; B lower in ${ratios.filter((x) => x < 1).length} of ${ratios.length}`)
    }
  }
} finally {
  for (const side of sides) {
    await side.server.stop()
    await side.etcd?.stop()
  }
  rmSync(scratch, { recursive: true, force: true })
}
