// The resource API's throughput over HTTPS (create, get, list of 1,000 and 10,000 objects as
// JSON and as Table, merge patch, watch fan-out to 100 watchers), on the embedded store and
// on etcd, against the same operations done directly on the store (openStore) in the same
// run: the ratio is the cost of the API (TLS, HTTP, the filter chain, decoding, validation,
// encoding) over the bare store. Objects are ConfigMaps of about 1 KiB.
// Needs the build (npm run build) and etcd on PATH (or ETCD_BIN).
//   node bench/api.bench.js             BENCH_SCALE=0.2 for a quick run
import fs from 'node:fs'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { startEtcd } from './support/etcd.js'
import { report } from './support/report.js'
import { startServer } from './support/server.js'
import { loadStoreForBench, rate } from './support/store-bench.js'

const openStore = await loadStoreForBench()

const scale = Number(process.env.BENCH_SCALE ?? 1)
const n = (count) => Math.max(20, Math.round(count * scale))
const CONCURRENCY = 16
const WATCHERS = 100
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json'

function configMap(namespace, name) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } }
}

/** What the API stores for a ConfigMap, for the store-level rows: the same bytes, roughly. */
function storedValue(namespace, name) {
  const obj = configMap(namespace, name)
  obj.metadata.uid = '5f1c3a52-0b0e-4d5b-9d7b-1b2c3d4e5f60'
  obj.metadata.creationTimestamp = '2026-01-01T00:00:00Z'
  return Buffer.from(JSON.stringify(obj))
}

const rows = []
function record(operation, store, level, perSecond, unit = 'ops/s') {
  rows.push({ operation, store, level, perSecond, unit })
  console.error(`  ${operation.padEnd(36)} ${store.padEnd(7)} ${level.padEnd(6)} ${Math.round(perSecond)} ${unit}`)
}

// --- the API over HTTPS ---------------------------------------------------------------------

class Client {
  // As the administrator (the server's --write-kubeconfig client certificate): anonymous
  // requests are refused, and every answer that is not 2xx fails the bench.
  constructor(port, { ca, cert, key }) {
    this.port = port
    this.credentials = { ca, cert, key }
    this.agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2, ca, cert, key })
  }

  request(method, path, { body, contentType = 'application/json', accept = 'application/json' } = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))
      const req = https.request(
        { host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers: { accept, ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) } },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            if (res.statusCode >= 300) reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`))
            else resolve(text)
          })
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
  }

  /** Opens a watch and calls onEvent per line; resolves once the response headers arrived. */
  watch(path, onEvent) {
    return new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: this.port, path, agent: false, ...this.credentials, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: ${res.statusCode}`))
          res.resume()
          return
        }
        let buffered = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          buffered += chunk
          let nl
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl)
            buffered = buffered.slice(nl + 1)
            if (line.trim() !== '') onEvent(line)
          }
        })
        res.on('error', () => {})
        resolve(req)
      })
      req.on('error', reject)
      req.end()
    })
  }
}

async function measureApi(label, server) {
  const api = new Client(server.port, server)
  const ns = (name) => api.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })
  for (const name of ['seq', 'par', 'list1k', 'list10k', 'watch']) await ns(name)
  const cms = (namespace) => `/api/v1/namespaces/${namespace}/configmaps`
  const seqCount = n(2000)
  record('create, 1 in flight', label, 'api', await rate(seqCount, 1, (i) => api.request('POST', cms('seq'), { body: configMap('seq', `c${i}`) })))
  record(`create, ${CONCURRENCY} in flight`, label, 'api', await rate(n(8000), CONCURRENCY, (i) => api.request('POST', cms('par'), { body: configMap('par', `c${i}`) })))
  record('get, 1 in flight', label, 'api', await rate(n(5000), 1, (i) => api.request('GET', `${cms('seq')}/c${i % seqCount}`)))
  record(`get, ${CONCURRENCY} in flight`, label, 'api', await rate(n(10000), CONCURRENCY, (i) => api.request('GET', `${cms('seq')}/c${i % seqCount}`)))
  record(
    'patch (merge), 1 in flight',
    label,
    'api',
    await rate(seqCount, 1, (i) => api.request('PATCH', `${cms('seq')}/c${i}`, { body: { data: { n: String(i) } }, contentType: 'application/merge-patch+json' })),
  )
  for (const [namespace, count] of [['list1k', 1000], ['list10k', 10000]]) {
    await rate(count, 32, (i) => api.request('POST', cms(namespace), { body: configMap(namespace, `c${String(i).padStart(6, '0')}`) }))
  }
  record('list 1,000 (JSON)', label, 'api', await rate(n(50), 1, () => api.request('GET', cms('list1k'))))
  record('list 1,000 (Table)', label, 'api', await rate(n(50), 1, () => api.request('GET', cms('list1k'), { accept: TABLE })))
  record('list 10,000 (JSON)', label, 'api', await rate(n(10), 1, () => api.request('GET', cms('list10k'))))
  record('list 10,000 (Table)', label, 'api', await rate(n(10), 1, () => api.request('GET', cms('list10k'), { accept: TABLE })))

  // Watch fan-out: 100 watch streams on one namespace, 16 writers; events delivered per second
  // until every watcher has seen every write.
  const writes = n(1000)
  let done
  const allSeen = new Promise((resolve) => (done = resolve))
  let finished = 0
  const watches = await Promise.all(
    Array.from({ length: WATCHERS }, () => {
      let seen = 0
      return api.watch(`${cms('watch')}?watch=1&resourceVersion=0&allowWatchBookmarks=false`, (line) => {
        if (!line.startsWith('{"type":"ADDED"')) return
        if (++seen === writes && ++finished === WATCHERS) done()
      })
    }),
  )
  const started = process.hrtime.bigint()
  await rate(writes, CONCURRENCY, (i) => api.request('POST', cms('watch'), { body: configMap('watch', `c${i}`) }))
  await allSeen
  record(`watch, ${WATCHERS} watchers (events out)`, label, 'api', (writes * WATCHERS) / (Number(process.hrtime.bigint() - started) / 1e9), 'events/s')
  for (const w of watches) w.destroy()
  api.agent.destroy()
}

// --- the same operations on the store directly -------------------------------------------------

async function measureStore(label, store) {
  const key = (namespace, name) => `/configmaps/${namespace}/${name}`
  const seqCount = n(2000)
  record('create, 1 in flight', label, 'store', await rate(seqCount, 1, (i) => store.create(key('seq', `c${i}`), storedValue('seq', `c${i}`))))
  record(`create, ${CONCURRENCY} in flight`, label, 'store', await rate(n(8000), CONCURRENCY, (i) => store.create(key('par', `c${i}`), storedValue('par', `c${i}`))))
  record('get, 1 in flight', label, 'store', await rate(n(5000), 1, (i) => store.get(key('seq', `c${i % seqCount}`))))
  record(`get, ${CONCURRENCY} in flight`, label, 'store', await rate(n(10000), CONCURRENCY, (i) => store.get(key('seq', `c${i % seqCount}`))))
  // A patch is a read and a compare-and-swap write.
  record(
    'patch (merge), 1 in flight',
    label,
    'store',
    await rate(seqCount, 1, async (i) => {
      const kv = await store.get(key('seq', `c${i}`))
      await store.update(key('seq', `c${i}`), storedValue('seq', `c${i}`), kv.modRevision)
    }),
  )
  for (const [namespace, count] of [['list1k', 1000], ['list10k', 10000]]) {
    await rate(count, 32, (i) => store.create(key(namespace, `c${i}`), storedValue(namespace, `c${i}`)))
  }
  const list1k = await rate(n(50), 1, () => store.list(`/configmaps/list1k/`))
  const list10k = await rate(n(10), 1, () => store.list(`/configmaps/list10k/`))
  for (const form of ['JSON', 'Table']) {
    record(`list 1,000 (${form})`, label, 'store', list1k)
    record(`list 10,000 (${form})`, label, 'store', list10k)
  }
  const writes = n(1000)
  const watchers = await Promise.all(Array.from({ length: WATCHERS }, () => store.watch('/configmaps/watch/')))
  const started = process.hrtime.bigint()
  const consumed = watchers.map(async (watch) => {
    let seen = 0
    for await (const _event of watch) if (++seen === writes) break
  })
  await rate(writes, CONCURRENCY, (i) => store.create(key('watch', `c${i}`), storedValue('watch', `c${i}`)))
  await Promise.all(consumed)
  record(`watch, ${WATCHERS} watchers (events out)`, label, 'store', (writes * WATCHERS) / (Number(process.hrtime.bigint() - started) / 1e9), 'events/s')
  for (const watch of watchers) watch.cancel()
}

const common = { compactionIntervalMs: 0, healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000, initializationTimeoutMs: 20000 }
const etcd = await startEtcd()
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'api-bench-'))
try {
  console.error(`etcd ${etcd.clientUrl} (pid ${etcd.pid}); scratch ${tmp}; scale ${scale}`)
  const sqlite = await openStore({ ...common, dataDir: `${tmp}/store-sqlite`, prefix: '/registry' })
  try {
    await measureStore('sqlite', sqlite)
  } finally {
    await sqlite.close()
  }
  const remote = await openStore({ ...common, servers: [etcd.clientUrl], prefix: '/bench-store' })
  try {
    await measureStore('etcd', remote)
  } finally {
    await remote.close()
  }
  for (const [label, args] of [
    ['sqlite', []],
    ['etcd', [`--store-servers=${etcd.clientUrl}`, '--store-prefix=/bench-api']],
  ]) {
    fs.mkdirSync(`${tmp}/${label}`, { recursive: true })
    const server = await startServer(`${tmp}/${label}`, args)
    try {
      await measureApi(label, server)
    } finally {
      await server.stop()
    }
  }
} finally {
  await etcd.stop()
  fs.rmSync(tmp, { recursive: true, force: true })
}

const header = ['operation', 'store', 'store direct', 'API over HTTPS', 'API / store']
const table = []
for (const row of rows.filter((r) => r.level === 'api')) {
  const base = rows.find((r) => r.level === 'store' && r.store === row.store && r.operation === row.operation)
  table.push([row.operation, row.store, `${Math.round(base.perSecond).toLocaleString('en-US')} ${base.unit}`, `${Math.round(row.perSecond).toLocaleString('en-US')} ${row.unit}`, `${(row.perSecond / base.perSecond).toFixed(2)}x`])
}
console.log(`| ${header.join(' | ')} |`)
console.log(`|${header.map((_, i) => (i >= 2 ? '---:' : '---')).join('|')}|`)
for (const r of table) console.log(`| ${r.join(' | ')} |`)
report(
  import.meta.url,
  rows
    // The headline operations; the bench's own table has them all.
    .filter((r) => r.level === 'api' && [`create, ${CONCURRENCY} in flight`, `get, ${CONCURRENCY} in flight`, 'list 1,000 (JSON)', `watch, ${WATCHERS} watchers (events out)`].includes(r.operation))
    .map((row) => {
      const base = rows.find((r) => r.level === 'store' && r.store === row.store && r.operation === row.operation)
      return { subject: `API over HTTPS, ${row.operation}, ${row.store === 'sqlite' ? 'embedded store' : 'etcd'}`, figure: row.perSecond, unit: row.unit, baseline: 'the store directly', baselineFigure: base.perSecond }
    }),
)
fs.mkdirSync(new URL('../.bench-out/', import.meta.url), { recursive: true })
fs.writeFileSync(new URL('../.bench-out/api.json', import.meta.url), JSON.stringify({ scale, rows }, null, 2))
