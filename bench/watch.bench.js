// Watch fan-out under a steady write load (issue 18's goal): 1,000 watchers of one namespace's
// ConfigMaps, each on its own HTTPS connection, while ConfigMaps are created at 100/s for 10 s,
// on the embedded store and on etcd. Measured:
// - delivery: every watcher must get every create's ADDED event (a count per watcher);
// - latency: from the moment a create is sent to the moment a watcher has read its event, over
//   every (watcher, event) pair; p50 and p99 (goal: p99 under 100 ms). The baseline, measured in
//   the same run, is the creates' own round trip (its p99): no watcher can see an object sooner
//   than the store has it;
// - the server's resident memory (VmRSS of its /proc status), sampled every 100 ms, at its peak
//   (goal: under 300 MB); the baseline is the server's RSS before the watchers opened;
// - what does not depend on the machine's load (no goal): the server's CPU time per delivered
//   event and its write syscalls per delivered event (/proc/<pid>/io syscw), over the write phase.
// Each store is measured twice, on a fresh server each time: the watchers on HTTP/1.1, one TLS
// connection each (these rounds carry the goals), then on HTTP/2, 1,000 streams over 10
// connections, as client-go multiplexes its watches (the same figures without goals, and the
// CPU per event against the HTTP/1.1 round).
// The watchers run in their own process (bench/support/watch-clients.js), which reads 100,000
// events a second: it scans each line's bytes for the event's name, it does not decode or
// parse the JSON, and on HTTP/1.1 it reads the TLS socket without Node's HTTP client. Its CPU
// time and the server's are printed. On a 2-core machine it shares the CPU with the server, so
// a busy machine shows in the latency; the figures name the load average.
// CPU pinning (bench/support/cpu-pin.js): the server has the 'server' CPUs to itself; this
// process (the creator), the watchers' process and etcd (started by this process, so they
// inherit its CPUs) share the 'load' CPUs. Without it the scheduler moved the server and its
// load generators between the 2 cores and the figures swung 2x between runs. BENCH_PIN=0: off.
// The measured seconds follow a warm-up of BENCH_WATCH_WARMUP_SECONDS (default 5) of creates at the
// same rate, on the same watchers: its events must be delivered too (the "every event" row counts
// them), but the latency, CPU and write figures are taken over the measured seconds only; the
// warm-up's own p99 is reported beside them, without a goal. Without it the p99 measured the JIT's
// warm-up: in a cold 10 s round the 35 slowest creates (130-260 ms round trips) were the first
// 35, sent in the first 0.4 s, and set the p99 of 1,000; with 2 s of warm-up, the 2 measured
// seconds of --quick still saw the compiler at work (server CPU 2.1 s in 2 s, p99 224 ms, against
// 1.7 s and 86 ms after 5 s).
//   node bench/watch.bench.js     BENCH_WATCHERS=1000 BENCH_RATE=100 BENCH_WATCH_SECONDS (or BENCH_SECONDS)=10 BENCH_WATCH_WARMUP_SECONDS=5 (BENCH_PROFILE=/tmp/w: CPU profiles;
//                                 BENCH_STORES=embedded or etcd: one store only; BENCH_TRANSPORTS=http1 or
//                                 http2: one kind of round only; BENCH_H2_CONNECTIONS=10)
import { fork } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pinPid, pinningNote } from './support/cpu-pin.js'
import { etcdAvailable, startEtcd } from './support/etcd.js'
import { report } from './support/report.js'
import { startServer } from './support/server.js'

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000)
const RATE = Number(process.env.BENCH_RATE ?? 100)
// BENCH_WATCH_SECONDS before BENCH_SECONDS: `npm run bench -- --quick` keeps the goal's 10 s here
// (bench/run.js), because a 2 s round's p99 is the second slowest of 200 creates, not the goal's.
const SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
/** Seconds of creates at RATE before the measured ones (their events delivered, not measured). */
const WARMUP_SECONDS = Number(process.env.BENCH_WATCH_WARMUP_SECONDS ?? 5)
/** HTTP/2 connections the watchers share in the HTTP/2 rounds (0: no HTTP/2 round). */
const H2_CONNECTIONS = Number(process.env.BENCH_H2_CONNECTIONS ?? 10)
/** BENCH_TRANSPORTS=http1 or http2: one kind of round only. */
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'http1,http2').split(',')
const DRAIN_MS = 30_000
/** BENCH_WATCH_NICE=0: the watchers' process at the bench's own priority. */
const NICE_WATCHERS = process.env.BENCH_WATCH_NICE !== '0'
// This process and every process it starts (etcd, the watchers, the server until it is
// moved to its own CPUs below) run on the load generator's CPUs.
pinPid(process.pid, 'load')
console.log(`watch bench: ${pinningNote()}`)
const NAMESPACE = 'watch-bench'

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

/** The server's write syscalls so far (/proc/<pid>/io syscw): each watcher write is one (one TLS record or more). */
const writeCalls = (pid) => Number(/syscw:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN)

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]

/** The server's CPU time so far (user + system, all threads), in ms. */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100
}

/** Forks the watchers' process; `ask(message, reply key)` sends a message and awaits the answer. */
function watchClients() {
  const child = fork(fileURLToPath(new URL('./support/watch-clients.js', import.meta.url)), [], { stdio: 'inherit' })
  // The watchers stand for 1,000 other machines; on 2 cores they share the load CPU with etcd,
  // which a real cluster runs on its own machines. A lower scheduling priority (nice 5) keeps
  // their reads of 100,000 events a second from delaying etcd's answers to the creates (the
  // etcd rounds' create round trip p99: 110 ms over HTTP/1.1 without it, idle, 12:37 UTC).
  if (NICE_WATCHERS) setPriority(child.pid, 5)
  const ask = (message, key) =>
    new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (m[key] === undefined) return
        child.off('message', onMessage)
        child.off('exit', onExit)
        resolve(m)
      }
      const onExit = (code) => reject(new Error(`the watchers' process exited ${code}`))
      child.on('message', onMessage)
      child.once('exit', onExit)
      child.send(message)
    })
  return { child, ask }
}

async function measure(label, store, server, h2Connections) {
  const { admin, child } = server
  await admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } } })
  const cms = `/api/v1/namespaces/${NAMESPACE}/configmaps`
  const rv = JSON.parse(await admin('GET', cms)).metadata.resourceVersion
  const rssIdle = rssMb(child.pid)

  const measuredFrom = RATE * WARMUP_SECONDS
  const total = measuredFrom + RATE * SECONDS
  const clients = watchClients()
  await clients.ask(
    {
      open: {
        port: server.port,
        ca: Buffer.from(server.ca).toString('base64'),
        cert: Buffer.from(server.cert).toString('base64'),
        key: Buffer.from(server.key).toString('base64'),
        path: `${cms}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`,
        watchers: WATCHERS,
        total,
        h2Connections,
      },
    },
    'opened',
  )
  const rssWatching = rssMb(child.pid)
  let rssPeak = rssMb(child.pid)
  const sampler = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, rssMb(child.pid))
    } catch {
      // the server is gone: the bench fails below
    }
  }, 100)

  // Creates at a steady rate, each sent on its own tick (not bunched when one is slow): the
  // warm-up's first, then the measured ones, whose start marks the CPU and write counters (and,
  // with BENCH_PROFILE=prefix, starts the server's own CPU profile, /debug/pprof/profile).
  const createTimes = []
  const creates = []
  const sentAt = new Array(total).fill(0)
  let serverCpu0 = 0
  let writeCalls0 = 0
  let clientsMarked
  let profiling
  let measuredStart = 0
  const started = performance.now()
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    if (i === measuredFrom) {
      serverCpu0 = cpuMs(child.pid)
      writeCalls0 = writeCalls(child.pid)
      clientsMarked = clients.ask({ mark: true }, 'cpuStart')
      measuredStart = performance.now()
      if (process.env.BENCH_PROFILE) profiling = admin('GET', `/debug/pprof/profile?seconds=${SECONDS}`).then((text) => writeFileSync(`${process.env.BENCH_PROFILE}-${label.replace(/\W+/g, '-')}.cpuprofile`, text))
    }
    const name = `w-${i}`
    const t0 = performance.now()
    sentAt[i] = performance.timeOrigin + t0
    const measured = i >= measuredFrom
    creates.push(admin('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { n: String(i), pad: 'x'.repeat(200) } } }).then(() => measured && createTimes.push(performance.now() - t0)))
  }
  await Promise.all(creates)
  await profiling
  const { cpuStart } = await clientsMarked
  const writeSeconds = (performance.now() - measuredStart) / 1000
  const { result: seen } = await clients.ask({ finish: { sentAt, measuredFrom, drainMs: DRAIN_MS, cpuStart } }, 'result')
  const serverCpuMs = cpuMs(child.pid) - serverCpu0
  const serverWrites = writeCalls(child.pid) - writeCalls0
  clearInterval(sampler)
  clients.child.kill()

  createTimes.sort((a, b) => a - b)
  const result = {
    label,
    store,
    h2Connections,
    expected: total * WATCHERS,
    ...seen,
    writeSeconds,
    createP99: quantile(createTimes, 0.99),
    rssIdle,
    rssWatching,
    rssPeak,
    serverCpuMs,
    serverWrites,
  }
  console.log(
    `${label}: ${result.delivered.toLocaleString('en-US')} of ${result.expected.toLocaleString('en-US')} events delivered (${result.short} watchers short, ${result.ended} watches ended by the server), ` +
      `${measuredFrom} creates of warm-up, then ${total - measuredFrom} creates in ${writeSeconds.toFixed(1)} s; over these: delivery p50 ${result.p50?.toFixed(1)} ms, p99 ${result.p99?.toFixed(1)} ms, max ${result.max?.toFixed(0)} ms; ` +
      `create round trip p99 ${result.createP99.toFixed(1)} ms; server RSS ${rssIdle.toFixed(0)} MB idle, ${rssWatching.toFixed(0)} MB with the watchers idle, ${rssPeak.toFixed(0)} MB at peak; ` +
      `CPU from the first measured create to the last event: server ${(serverCpuMs / 1000).toFixed(1)} s, the watchers' process ${(result.cpuMs / 1000).toFixed(1)} s; ` +
      `server write syscalls ${serverWrites.toLocaleString('en-US')} (${(serverWrites / Math.max(1, result.deliveredMeasured)).toFixed(3)} per event delivered in the measured seconds)`,
  )
  return result
}

/**
 * The rounds of one store: the watchers on HTTP/1.1 (one connection each), then on HTTP/2
 * (streams of H2_CONNECTIONS connections), each on a fresh server and, for etcd, a fresh etcd
 * (`withStore` starts it and resolves to the server's store arguments and a stop function).
 */
async function onStore(label, withStore) {
  const rounds = []
  if (TRANSPORTS.includes('http1')) rounds.push(await onServer(label, label, withStore, 0))
  if (TRANSPORTS.includes('http2') && H2_CONNECTIONS > 0) rounds.push(await onServer(label, `${label}, HTTP/2 (${WATCHERS.toLocaleString('en-US')} streams over ${H2_CONNECTIONS} connections)`, withStore, H2_CONNECTIONS))
  return rounds
}

async function onServer(storeName, label, withStore, h2Connections) {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-watch-'))
  const store = await withStore()
  try {
    const server = await startServer(dir, store.args, { maxSockets: 64 })
    try {
      pinPid(server.child.pid, 'server')
      return await measure(label, storeName, server, h2Connections)
    } finally {
      await server.stop()
    }
  } finally {
    await store.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const STORES = (process.env.BENCH_STORES ?? 'embedded,etcd').split(',')
const results = STORES.includes('embedded') ? await onStore('embedded store', async () => ({ args: [], stop: async () => {} })) : []
if (!STORES.includes('etcd')) {
  // one store asked for
} else if (etcdAvailable()) {
  results.push(
    ...(await onStore('etcd', async () => {
      const etcd = await startEtcd()
      return { args: [`--store-servers=${etcd.clientUrl}`], stop: () => etcd.stop() }
    })),
  )
} else console.error('etcd is not installed (Debian package etcd-server): the etcd round is left out')

console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)
const subject = `${WATCHERS.toLocaleString('en-US')} watchers, ${RATE} creates/s for ${SECONDS} s`
const perEvent = (ms, r) => (ms * 1000) / Math.max(1, r.deliveredMeasured)
/**
 * The goals are carried by the HTTP/1.1 rounds: the bench as it was measured from the
 * start (every round's figures compare), and the harder case for the server, 1,000 clients
 * each on its own connection (a thousand kubelets). The HTTP/2 rounds say what the same load
 * costs the way client-go sends it (its watches share a connection): their latency and memory
 * rows show the same goals, and their CPU rows take the HTTP/1.1 round of the same store as
 * baseline.
 */
const rows = (r, http1) => {
  const goals = r.h2Connections === 0
  // The latency and memory goals are also shown on the HTTP/2 rounds (seventh round): on 2 cores
  // the HTTP/1.1 write floor may keep those rows from the goal (docs/performance-history.md, "Seventh
  // round: watch delivery"), and the HTTP/2 rows say whether the server meets it the way
  // client-go sends watches.
  return [
    {
      subject: `${subject}, ${r.label}: events delivered`,
      figure: r.delivered,
      unit: 'events',
      baseline: 'events sent (creates × watchers)',
      baselineFigure: r.expected,
      goal: 'all',
      met: r.delivered === r.expected,
    },
    {
      subject: `${subject}, ${r.label}: p99 delivery (create sent → watcher read)`,
      figure: r.p99,
      unit: 'ms',
      baseline: 'p99 of a create round trip',
      baselineFigure: r.createP99,
      goal: '< 100 ms',
      met: r.p99 < 100,
    },
    {
      // The same over the warm-up's creates (no goal): a server that just opened its watchers,
      // its fan-out path still being compiled.
      subject: `${subject}, ${r.label}: p99 delivery during the ${WARMUP_SECONDS} s of warm-up before`,
      figure: r.warmupP99,
      unit: 'ms',
    },
    {
      subject: `${subject}, ${r.label}: server RSS at peak`,
      figure: r.rssPeak,
      unit: 'MB',
      baseline: 'RSS before the watchers',
      baselineFigure: r.rssIdle,
      goal: '< 300 MB',
      met: r.rssPeak < 300,
    },
    {
      // What the fan-out costs, whatever the load: the server's CPU time over the write phase
      // (creates and deliveries) per delivered event; no goal of its own, it says how far the
      // latency goal is from the machine (1,000 watchers × 100 events/s at 10 µs is a core).
      subject: `${subject}, ${r.label}: server CPU per delivered event`,
      figure: perEvent(r.serverCpuMs, r),
      unit: 'µs',
      ...(goals || http1 === undefined
        ? { baseline: "the watchers' process CPU per read event", baselineFigure: perEvent(r.cpuMs, r) }
        : { baseline: 'the same over HTTP/1.1', baselineFigure: perEvent(http1.serverCpuMs, http1) }),
    },
    ...(goals || http1 === undefined
      ? []
      : [
          {
            subject: `${subject}, ${r.label}: the watchers' process CPU per read event`,
            figure: perEvent(r.cpuMs, r),
            unit: 'µs',
            baseline: 'the same over HTTP/1.1',
            baselineFigure: perEvent(http1.cpuMs, http1),
          },
        ]),
    {
      // Each write is a TLS record and a syscall, the fan-out's largest cost over HTTP/1.1:
      // below 1 per event once a watcher's events share writes (the flush window, a busy turn).
      subject: `${subject}, ${r.label}: server write syscalls per delivered event`,
      figure: r.serverWrites / Math.max(1, r.deliveredMeasured),
      unit: 'writes',
    },
  ]
}
report(
  import.meta.url,
  results.flatMap((r) => rows(r, results.find((h) => h.store === r.store && h.h2Connections === 0))),
)
