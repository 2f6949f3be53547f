// Start-up to ready of `client server start`: the time from spawning the process to the first
// 200 from /readyz, on a first start (certificates, service-account keys and the administrator's
// kubeconfig generated) and on a start with all of them present. Baseline: the same spawn of a
// bare Node HTTPS server (the floor of any Node server), in the same run, interleaved.
// Goals: ready within 0.5 s with certificates present and within 1 s on a first start.
// Not pinned to CPUs by default: a start uses several threads (V8's compiler and GC helpers,
// libuv's pool generating the first start's keys and syncing the store), which one pinned CPU
// would serialise for the server and hardly at all for the bare baseline; BENCH_STARTUP_PIN=1
// pins both to the 'server' CPUs (bench/support/cpu-pin.js). BENCH_RUNS rounds (default 9),
// each spawning the three in turn; the medians are reported, with each process's CPU time to
// ready (/proc/<pid>/stat), which other work on the machine changes far less than wall time.
// Before its rounds the bench waits for the machine to settle (BENCH_STARTUP_SETTLE_SECONDS,
// default 30; 0 skips): in the whole `npm run bench` it starts right after benches that loaded
// the machine, whose processes may still be exiting. It waits until a second passes with the
// CPUs at most a quarter busy, names the busiest processes if they never are, and then runs one
// unmeasured round (page cache, the first spawn of each file) before the measured ones.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { cpus, loadavg, tmpdir } from 'node:os'
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
const settleSeconds = Number(process.env.BENCH_STARTUP_SETTLE_SECONDS ?? 30)
console.log(`server start-up: ${runs} rounds; ${pin ? pinningNote() : 'processes not pinned to CPUs (BENCH_STARTUP_PIN=1 pins the server and the baseline)'}; load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux). */
const TICK_HZ = 100
/** [busy, total] CPU ticks of the whole machine (/proc/stat). */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
  const n = fields.map(Number)
  const idle = n[3] + (n[4] ?? 0)
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0)
  return [total - idle, total]
}
/** CPU ms (user + system) of a process so far, from /proc/<pid>/stat; undefined once it is gone. */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK_HZ
  } catch {
    return undefined
  }
}
/** CPU ticks by process (pid -> [name, ticks]), to name what keeps the machine busy. */
function processTicks() {
  const out = new Map()
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ')
      out.set(pid, [text.slice(text.indexOf('(') + 1, text.lastIndexOf(') ')), Number(fields[11]) + Number(fields[12])])
    } catch {
      // gone meanwhile
    }
  }
  return out
}
/**
 * Waits until one second passes with the machine's CPUs at most a quarter busy, for up to
 * `seconds`; returns what it saw, for the header.
 */
async function settle(seconds) {
  if (!(seconds > 0) || !existsProc()) return 'not waited for'
  const started = performance.now()
  let busy = 1
  let before = processTicks()
  while (true) {
    const [b0, t0] = machineTicks()
    await new Promise((r) => setTimeout(r, 1000))
    const [b1, t1] = machineTicks()
    busy = (b1 - b0) / Math.max(1, t1 - t0)
    const waited = (performance.now() - started) / 1000
    if (busy <= 0.25) return `settled after ${waited.toFixed(0)} s (CPUs ${(busy * 100).toFixed(0)} % busy over the last second)`
    if (waited >= seconds) {
      const after = processTicks()
      const top = [...after]
        .map(([pid, [name, ticks]]) => [pid, name, ticks - (before.get(pid)?.[1] ?? ticks)])
        .filter(([pid, , d]) => d > 0 && Number(pid) !== process.pid)
        .sort((a, b) => b[2] - a[2])
        .slice(0, 3)
        .map(([pid, name, d]) => `${commandLine(pid) ?? name} (pid ${pid}) ${((d * 1000) / TICK_HZ / 1000 / cpus().length * 100).toFixed(0)} %`)
      return `NOT settled after ${waited.toFixed(0)} s: CPUs ${(busy * 100).toFixed(0)} % busy over the last second; busiest: ${top.join(', ') || 'none found'}`
    }
    before = processTicks()
  }
}
/** The first words of a process's command line, or undefined. */
function commandLine(pid) {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    return words.length ? words.join(' ').slice(0, 80) : undefined
  } catch {
    return undefined
  }
}
function existsProc() {
  try {
    readFileSync('/proc/stat')
    return true
  } catch {
    return false
  }
}

/** Polls `url` every 10 ms; resolves when it answers 200, with the child's CPU time then. */
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
          resolve({ at: performance.now(), cpuMs: processCpuMs(child.pid) })
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
    const { at, cpuMs } = await readyAt(`https://127.0.0.1:${port}/readyz`, child)
    return { ms: at - start, cpuMs }
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}

async function timeBare(dir, port) {
  const start = performance.now()
  const child = nodeSpawn([bareScript, String(port), `${dir}/certs/apiserver.crt`, `${dir}/certs/apiserver.key`], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    const { at, cpuMs } = await readyAt(`https://127.0.0.1:${port}/`, child)
    return { ms: at - start, cpuMs }
  } finally {
    child.kill('SIGKILL')
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)))
  }
}

const settled = await settle(settleSeconds)
console.log(`machine before the rounds: ${settled}; load average ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)

/** One round: a first start, a start with everything present, the bare server; in that order. */
async function round() {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-startup-'))
  try {
    const f = await timeServer(dir, await freePort())
    const p = await timeServer(dir, await freePort())
    const b = await timeBare(dir, await freePort())
    return [f, p, b]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
// Not measured: reads every file into the page cache and takes each program's first spawn.
await round()
const first = []
const present = []
const bare = []
for (let i = 0; i < runs; i++) {
  const [f, p, b] = await round()
  first.push(f)
  present.push(p)
  bare.push(b)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = (xs) => xs.map((x) => x.ms)
const cpuOf = (xs) => xs.map((x) => x.cpuMs).filter((c) => c !== undefined)
const floor = median(ms(bare))
const floorCpu = cpuOf(bare).length ? median(cpuOf(bare)) : undefined
console.log(`| start | median ms | min ms | max ms | × bare Node HTTPS | CPU to ready ms (median) | goal |`)
console.log(`|---|---:|---:|---:|---:|---:|---|`)
const rows = [
  ['bare Node HTTPS server (baseline)', bare, undefined],
  ['certificates present', present, 500],
  ['first start (generates certificates, keys, kubeconfig)', first, 1000],
]
for (const [name, xs, goal] of rows) {
  const m = median(ms(xs))
  const c = cpuOf(xs)
  console.log(`| ${name} | ${m.toFixed(0)} | ${Math.min(...ms(xs)).toFixed(0)} | ${Math.max(...ms(xs)).toFixed(0)} | ${(m / floor).toFixed(2)} | ${c.length ? median(c).toFixed(0) : ''} | ${goal ? `≤ ${goal} ms ${m <= goal ? 'MET' : 'NOT MET'}` : ''} |`)
}
console.log(`load average after the rounds ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)
report(import.meta.url, [
  ...rows.slice(1).map(([name, xs, goal]) => ({
    subject: `server start to ready: ${name}`,
    figure: median(ms(xs)),
    unit: 'ms',
    baseline: 'bare Node HTTPS server',
    baselineFigure: floor,
    goal: `≤ ${goal} ms`,
    met: median(ms(xs)) <= goal,
  })),
  ...(floorCpu && cpuOf(present).length
    ? [
        {
          subject: `server start to ready, certificates present: CPU time to ready (machine ${settled.startsWith('NOT') ? 'not settled' : 'settled'} before the rounds)`,
          figure: median(cpuOf(present)),
          unit: 'ms',
          baseline: 'bare Node HTTPS server: CPU time to ready',
          baselineFigure: floorCpu,
        },
      ]
    : []),
])
