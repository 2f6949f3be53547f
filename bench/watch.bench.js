// Watch fan-out under a steady write load (issue 18's goal): 1,000 watchers of one namespace's
// ConfigMaps, each on its own HTTPS connection, while ConfigMaps are created at 100/s for 10 s,
// on the embedded store and on etcd. Measured:
// - delivery: every watcher must get every create's ADDED event (a count per watcher);
// - latency: from the moment a create is sent to the moment a watcher has read its event, over
//   every (watcher, event) pair; p50 and p99 (goal: p99 under 100 ms). The baseline, measured in
//   the same run, is the creates' own round trip (its p99): no watcher can see an object sooner
//   than the store has it;
// - the server's resident memory (VmRSS of its /proc status), sampled every 100 ms, at its peak
//   (goal: under 300 MB); the baseline is the server's RSS before the watchers opened.
// The bench's own process reads 100,000 events a second: it only looks for each event's name in
// the line, it does not parse the JSON. On a 2-core machine it shares the CPU with the server,
// so a busy machine shows in the latency; the figures name the load average.
//   node bench/watch.bench.js     BENCH_WATCHERS=1000 BENCH_RATE=100 BENCH_SECONDS=10 (BENCH_PROFILE=/tmp/w: CPU profiles)
import https from 'node:https'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { etcdAvailable, startEtcd } from './support/etcd.js'
import { report } from './support/report.js'
import { startServer } from './support/server.js'

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000)
const RATE = Number(process.env.BENCH_RATE ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const DRAIN_MS = 30_000
const NAMESPACE = 'watch-bench'

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : NaN
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]

/** Opens one watch on its own connection; `onName(name, at)` per ADDED event. Resolves with the request once the headers came. */
function openWatch(server, path, onName, onEnd) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: server.port, path, agent: false, ca: server.ca, cert: server.cert, key: server.key, headers: { accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`watch ${path}: ${res.statusCode}`))
        return
      }
      let buffered = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        const at = performance.now()
        buffered += chunk
        let start = 0
        let nl
        while ((nl = buffered.indexOf('\n', start)) >= 0) {
          // {"type":"ADDED","object":{"kind":"ConfigMap",...,"metadata":{"name":"w-12",...
          if (buffered.startsWith('{"type":"ADDED"', start)) {
            const at0 = buffered.indexOf('"name":"', start) + 8
            onName(buffered.slice(at0, buffered.indexOf('"', at0)), at)
          }
          start = nl + 1
        }
        buffered = buffered.slice(start)
      })
      res.on('error', () => {})
      res.on('end', onEnd)
      resolve(req)
    })
    req.on('error', reject)
    req.end()
  })
}

async function measure(label, server) {
  const { admin, child } = server
  await admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } } })
  const cms = `/api/v1/namespaces/${NAMESPACE}/configmaps`
  const rv = JSON.parse(await admin('GET', cms)).metadata.resourceVersion
  const rssIdle = rssMb(child.pid)

  const total = RATE * SECONDS
  const sentAt = new Map()
  const latencies = []
  const counts = new Array(WATCHERS).fill(0)
  let delivered = 0
  // Watches the server ended before the bench did (a watcher it judged too slow, a timeout).
  let ended = 0
  let allDelivered
  const done = new Promise((resolve) => (allDelivered = resolve))
  const watches = []
  // Open in groups, so that 1,000 TLS handshakes do not all wait on one another.
  for (let i = 0; i < WATCHERS; i += 50) {
    const group = []
    for (let k = i; k < Math.min(WATCHERS, i + 50); k++) {
      group.push(
        openWatch(server, `${cms}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`, (name, at) => {
          counts[k]++
          latencies.push(at - sentAt.get(name))
          if (++delivered === total * WATCHERS) allDelivered()
        }, () => ended++),
      )
    }
    watches.push(...(await Promise.all(group)))
  }
  let rssPeak = rssMb(child.pid)
  const sampler = setInterval(() => {
    try {
      rssPeak = Math.max(rssPeak, rssMb(child.pid))
    } catch {
      // the server is gone: the bench fails below
    }
  }, 100)

  // BENCH_PROFILE=prefix: the server's own CPU profile of the write phase (/debug/pprof/profile).
  const profiling = process.env.BENCH_PROFILE
    ? admin('GET', `/debug/pprof/profile?seconds=${SECONDS}`).then((text) => writeFileSync(`${process.env.BENCH_PROFILE}-${label.replace(/\W+/g, '-')}.cpuprofile`, text))
    : undefined
  // Creates at a steady rate, each sent on its own tick (not bunched when one is slow).
  const createTimes = []
  const creates = []
  const started = performance.now()
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const name = `w-${i}`
    const t0 = performance.now()
    sentAt.set(name, t0)
    creates.push(admin('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data: { n: String(i), pad: 'x'.repeat(200) } } }).then(() => createTimes.push(performance.now() - t0)))
  }
  await Promise.all(creates)
  await profiling
  const writeSeconds = (performance.now() - started) / 1000
  const drained = await Promise.race([done.then(() => true), new Promise((r) => setTimeout(() => r(false), DRAIN_MS))])
  clearInterval(sampler)
  for (const w of watches) w.destroy()

  latencies.sort((a, b) => a - b)
  createTimes.sort((a, b) => a - b)
  const result = {
    label,
    expected: total * WATCHERS,
    delivered,
    short: counts.filter((c) => c !== total).length,
    ended,
    drained,
    writeSeconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1],
    createP99: quantile(createTimes, 0.99),
    rssIdle,
    rssPeak,
  }
  console.log(
    `${label}: ${delivered.toLocaleString('en-US')} of ${result.expected.toLocaleString('en-US')} events delivered (${result.short} watchers short, ${result.ended} watches ended by the server), ` +
      `${total} creates in ${writeSeconds.toFixed(1)} s; delivery p50 ${result.p50?.toFixed(1)} ms, p99 ${result.p99?.toFixed(1)} ms, max ${result.max?.toFixed(0)} ms; ` +
      `create round trip p99 ${result.createP99.toFixed(1)} ms; server RSS ${rssIdle.toFixed(0)} MB idle, ${rssPeak.toFixed(0)} MB at peak`,
  )
  return result
}

async function onServer(label, args) {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-watch-'))
  const server = await startServer(dir, args, { maxSockets: 64 })
  try {
    return await measure(label, server)
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results = [await onServer('embedded store', [])]
if (etcdAvailable()) {
  const etcd = await startEtcd()
  try {
    results.push(await onServer('etcd', [`--store-servers=${etcd.clientUrl}`]))
  } finally {
    await etcd.stop()
  }
} else console.error('etcd is not installed (Debian package etcd-server): the etcd round is left out')

console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)
const subject = `${WATCHERS.toLocaleString('en-US')} watchers, ${RATE} creates/s for ${SECONDS} s`
report(
  import.meta.url,
  results.flatMap((r) => [
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
      subject: `${subject}, ${r.label}: server RSS at peak`,
      figure: r.rssPeak,
      unit: 'MB',
      baseline: 'RSS before the watchers',
      baselineFigure: r.rssIdle,
      goal: '< 300 MB',
      met: r.rssPeak < 300,
    },
  ]),
)
