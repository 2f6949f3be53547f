// Store throughput: create, get, list (1,000 and 10,000 keys), update, and watch delivery to
// 100 watchers, for the embedded SQLite store and the etcd store, against a direct etcd3 put
// loop on the same etcd in the same run (the baseline). The goal: the embedded
// store creates at least as fast as the direct etcd write loop. Also the etcd client's CPU
// per call (the etcd store's get and create against etcd3's get and put, 8 in flight), and its
// CPU per watch event (the etcd store's watch against etcd3's watcher, the writes made by a
// child process so that only receiving them is counted).
// Needs the compiled code (npx tsc -p tsconfig.json) and etcd on PATH (or ETCD_BIN).
//   node bench/store.bench.js            BENCH_SCALE=0.2 for a quick run
import { fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Etcd3 } from 'etcd3'
import { startEtcd } from './support/etcd.js'
import { loadStoreForBench, rate } from './support/store-bench.js'
import { report } from './support/report.js'

const openStore = await loadStoreForBench()

const scale = Number(process.env.BENCH_SCALE ?? 1)
const n = (count) => Math.max(50, Math.round(count * scale))
const VALUE = Buffer.alloc(1024, 'x') // about a small Kubernetes object
const CONCURRENCY = 16

const rows = []
function record(operation, store, opsPerSecond, unit = 'ops/s') {
  rows.push({ operation, store, opsPerSecond, unit })
  console.error(`  ${operation.padEnd(34)} ${store.padEnd(14)} ${Math.round(opsPerSecond)} ${unit}`)
}

async function baseline(clientUrl) {
  const client = new Etcd3({ hosts: clientUrl })
  try {
    await client.put('/bench-warmup').value('x')
    const seq = await rate(n(2000), 1, (i) => client.put(`/bench-baseline/seq/${i}`).value(VALUE))
    record('create, 1 in flight', 'etcd3 direct', seq)
    const par = await rate(n(8000), CONCURRENCY, (i) => client.put(`/bench-baseline/par/${i}`).value(VALUE))
    record(`create, ${CONCURRENCY} in flight`, 'etcd3 direct', par)
    return { seq, par }
  } finally {
    client.close()
  }
}

async function fill(store, prefix, count) {
  let next = 0
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        const i = next++
        await store.create(`${prefix}${String(i).padStart(6, '0')}`, VALUE)
      }
    }),
  )
}

async function measure(label, store) {
  const seqCount = n(2000)
  record('create, 1 in flight', label, await rate(seqCount, 1, (i) => store.create(`/bench/seq/${i}`, VALUE)))
  record(
    `create, ${CONCURRENCY} in flight`,
    label,
    await rate(n(8000), CONCURRENCY, (i) => store.create(`/bench/par/${i}`, VALUE)),
  )
  record('get, 1 in flight', label, await rate(n(5000), 1, (i) => store.get(`/bench/seq/${i % seqCount}`)))

  const revisions = new Map()
  for (let i = 0; i < seqCount; i++) revisions.set(i, (await store.get(`/bench/seq/${i}`)).modRevision)
  record(
    'update (CAS), 1 in flight',
    label,
    await rate(seqCount, 1, async (i) => {
      const kv = await store.update(`/bench/seq/${i}`, VALUE, revisions.get(i))
      revisions.set(i, kv.modRevision)
    }),
  )

  await fill(store, '/bench/list1k/', 1000)
  await fill(store, '/bench/list10k/', 10000)
  record('list 1,000 keys', label, await rate(n(100), 1, () => store.list('/bench/list1k/')))
  record('list 10,000 keys', label, await rate(n(20), 1, () => store.list('/bench/list10k/')))
  record('list 10,000 keys, pages of 500', label, await rate(n(20), 1, async () => {
    let page = await store.list('/bench/list10k/', { limit: 500 })
    while (page.continue) page = await store.list('/bench/list10k/', { limit: 500, continue: page.continue })
  }))

  // Watch fan-out: 100 watchers on one prefix, writes from 16 writers; the rate is events
  // delivered to consumers per second, until every watcher saw every write.
  const watchers = await Promise.all(Array.from({ length: 100 }, () => store.watch('/bench/watch/')))
  const writes = n(1000)
  const started = process.hrtime.bigint()
  const consumed = watchers.map(async (watch) => {
    let seen = 0
    for await (const _event of watch) if (++seen === writes) break
  })
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < writes) await store.create(`/bench/watch/${next++}`, VALUE)
    }),
  )
  await Promise.all(consumed)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  record('watch, 100 watchers (events out)', label, (writes * watchers.length) / seconds, 'events/s')
  for (const watch of watchers) watch.cancel()
}

/**
 * CPU of this process per call, `inFlight` calls at a time (all its threads: the etcd client's
 * cost, etcd itself runs in its own process). Interleaved rounds, the median.
 */
async function cpuPerCall(count, inFlight, op) {
  const cpu = process.cpuUsage()
  await rate(count, inFlight, op)
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / count
}

/**
 * CPU of this process per watch event: `watch()` establishes a watch and resolves to `{ done }`,
 * which settles once it has received the `count` events of the writes under `prefix` that a
 * child process makes (8 in flight).
 */
async function cpuPerEvent(clientUrl, prefix, count, watch) {
  const cpu = process.cpuUsage()
  const { done } = await watch()
  const child = fork(new URL('./support/etcd-putter.js', import.meta.url), [clientUrl, prefix, String(count), '8', String(VALUE.length)], { stdio: 'ignore' })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await done
  const used = process.cpuUsage(cpu)
  if ((await exited) !== 0) throw new Error('the etcd putter failed')
  return (used.user + used.system) / count
}

// The etcd client's CPU per call: the store's get and create (its lean Range and Txn client)
// against etcd3's get and put on the same etcd, 8 in flight, rounds interleaved.
const CLIENT_IN_FLIGHT = 8
async function clientCost(clientUrl, store) {
  const client = new Etcd3({ hosts: clientUrl })
  const figures = { storeGet: [], etcd3Get: [], storeCreate: [], etcd3Put: [], storeWatch: [], etcd3Watch: [] }
  // Each resolves once its watch is established, to { done }: the `count` events received.
  const storeWatch = async (prefix, count) => {
    const watch = await store.watch(prefix)
    const done = (async () => {
      let seen = 0
      for await (const _event of watch) if (++seen >= count) break
      watch.cancel()
    })()
    return { done }
  }
  const etcd3Watch = async (prefix, count) => {
    const watcher = await client.watch().prefix(prefix).withPreviousKV().create()
    const done = new Promise((resolve) => {
      let seen = 0
      watcher.on('put', () => ++seen === count && resolve())
    }).then(() => watcher.cancel())
    return { done }
  }
  try {
    await client.put('/bench-client/one').value(VALUE)
    await store.create('/bench-client/one', VALUE)
    const calls = n(3000)
    for (let round = 0; round < 3; round++) {
      figures.etcd3Get.push(await cpuPerCall(calls, CLIENT_IN_FLIGHT, () => client.get('/bench-client/one').buffer()))
      figures.storeGet.push(await cpuPerCall(calls, CLIENT_IN_FLIGHT, () => store.get('/bench-client/one')))
      figures.etcd3Put.push(await cpuPerCall(calls, CLIENT_IN_FLIGHT, (i) => client.put(`/bench-client/put/${round}/${i}`).value(VALUE)))
      figures.storeCreate.push(await cpuPerCall(calls, CLIENT_IN_FLIGHT, (i) => store.create(`/bench-client/create/${round}/${i}`, VALUE)))
      // The store keeps its keys under '/registry' (its prefix): the writes go there.
      figures.etcd3Watch.push(await cpuPerEvent(clientUrl, `/bench-client/watch-etcd3/${round}/`, calls, () => etcd3Watch(`/bench-client/watch-etcd3/${round}/`, calls)))
      figures.storeWatch.push(await cpuPerEvent(clientUrl, `/registry/bench-client/watch-store/${round}/`, calls, () => storeWatch(`/bench-client/watch-store/${round}/`, calls)))
    }
  } finally {
    client.close()
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const result = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)]))
  for (const [k, v] of Object.entries(result)) console.error(`  client CPU per call, ${k.padEnd(12)} ${v.toFixed(1)} µs`)
  return result
}

const common = {
  compactionIntervalMs: 0,
  healthcheckTimeoutMs: 2000,
  readycheckTimeoutMs: 2000,
  initializationTimeoutMs: 20000,
}

const etcd = await startEtcd()
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-'))
let base
let clientCpu
try {
  console.error(`etcd ${etcd.clientUrl} (pid ${etcd.pid}); sqlite in ${dataDir}; scale ${scale}`)
  base = await baseline(etcd.clientUrl)
  const sqlite = await openStore({ ...common, dataDir, prefix: '/registry' })
  try {
    await measure('sqlite', sqlite)
  } finally {
    await sqlite.close()
  }
  const remote = await openStore({ ...common, servers: [etcd.clientUrl], prefix: '/registry' })
  try {
    await measure('etcd', remote)
    clientCpu = await clientCost(etcd.clientUrl, remote)
  } finally {
    await remote.close()
  }
} finally {
  await etcd.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
}

// Every row against the same baseline: the direct etcd3 put loop at the same concurrency
// for creates, the sequential loop otherwise.
const baselineFor = (row) => (row.operation.includes(`${CONCURRENCY} in flight`) ? base.par : base.seq)
const header = ['operation', 'store', 'rate', `vs etcd3 put loop`]
const table = rows.map((row) => [
  row.operation,
  row.store,
  `${Math.round(row.opsPerSecond).toLocaleString('en-US')} ${row.unit}`,
  `${(row.opsPerSecond / baselineFor(row)).toFixed(2)}x`,
])
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)))
const line = (cells) => cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ')
console.log(line(header))
console.log(widths.map((w) => '-'.repeat(w)).join('  '))
for (const r of table) console.log(line(r))

const createRow = (store, inFlight) => rows.find((r) => r.store === store && r.operation === `create, ${inFlight} in flight`)
for (const inFlight of [1, CONCURRENCY]) {
  const ours = createRow('sqlite', inFlight).opsPerSecond
  const theirs = createRow('etcd3 direct', inFlight).opsPerSecond
  const verdict = ours >= theirs ? 'meets' : 'MISSES'
  console.log(`\nembedded create, ${inFlight} in flight: ${(ours / theirs).toFixed(2)}x the direct etcd3 put loop (${verdict} the goal of >= 1.00x)`)
}
report(
  import.meta.url,
  rows
    // The headline operations; the bench's own table has them all.
    .filter((row) => row.store !== 'etcd3 direct' && (row.operation.startsWith('create') || row.operation.startsWith('get')))
    .map((row) => {
      const isCreate = row.operation.startsWith('create')
      const goal = row.store === 'sqlite' && isCreate ? '≥ 1x' : undefined
      return {
        subject: `${row.store === 'sqlite' ? 'embedded store' : 'etcd store'}: ${row.operation}`,
        figure: row.opsPerSecond,
        unit: row.unit,
        ...(isCreate ? { baseline: 'direct etcd3 put loop', baselineFigure: baselineFor(row) } : {}),
        goal,
        met: goal ? row.opsPerSecond / baselineFor(row) >= 1 : undefined,
      }
    })
    .concat([
      { subject: `etcd store: get, ${CLIENT_IN_FLIGHT} in flight, client CPU per call`, figure: clientCpu.storeGet, unit: 'µs', baseline: 'etcd3 get(key).buffer()', baselineFigure: clientCpu.etcd3Get },
      { subject: `etcd store: create, ${CLIENT_IN_FLIGHT} in flight, client CPU per call`, figure: clientCpu.storeCreate, unit: 'µs', baseline: 'etcd3 put(key).value()', baselineFigure: clientCpu.etcd3Put },
      { subject: 'etcd store: watch, client CPU per event received (writes from another process)', figure: clientCpu.storeWatch, unit: 'µs', baseline: "etcd3's watcher, 'put' events", baselineFigure: clientCpu.etcd3Watch },
    ]),
)
fs.mkdirSync(new URL('../.bench-out/', import.meta.url), { recursive: true })
fs.writeFileSync(new URL('../.bench-out/store.json', import.meta.url), JSON.stringify({ scale, rows }, null, 2))
