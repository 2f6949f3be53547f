// GET and LIST throughput over HTTPS of `client server start` on the embedded store with
// `--storage-media-type=application/vnd.kubernetes.protobuf` (the default) against
// `application/json`, measured in the same run with wrk on loopback; the answers are JSON in
// both cases, so the difference is the stored encoding (decoding on every read).
// Needs the build (npm run build) and wrk.
//   node bench/storage-media.bench.js     BENCH_SECONDS=2 BENCH_OBJECTS=100 BENCH_ROUNDS=1 for a quick run
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { report } from './support/report.js'
import { ADMIN_TOKEN, startServer as startAdminServer } from './support/server.js'
import { requireWrk, wrk as runWrk } from './support/wrk.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const objects = Number(process.env.BENCH_OBJECTS ?? 500)
requireWrk()

const MEDIA_TYPES = [
  ['protobuf', 'application/vnd.kubernetes.protobuf'],
  ['json', 'application/json'],
]

// As the administrator: wrk with the administrator's bearer token (it cannot present a client
// certificate); any answer that is not 2xx fails the bench.
const wrk = (url) => runWrk(url, { seconds, headers: { Accept: 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` } })

/** A config map of about 2 KB with labels and annotations, like a small real object. */
function configMap(i) {
  const data = {}
  for (let k = 0; k < 16; k++) data[`key-${k}`] = `value-${i}-${k}-`.padEnd(96, 'x')
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(i).padStart(5, '0')}`, labels: { app: 'bench', index: String(i) }, annotations: { 'bench/owner': 'storage-media' } },
    data,
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

async function startServer(mediaType) {
  const dir = mkdtempSync(join(tmpdir(), 'client-bench-media-'))
  let server
  const stop = async () => {
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    server = await startAdminServer(dir, [`--storage-media-type=${mediaType}`])
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < objects) await server.admin('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(next++) })
      }),
    )
  } catch (err) {
    await stop()
    throw err
  }
  return { port: server.port, stop }
}

const median = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]

// Both servers run at once and are measured in alternation, so drift in the machine's load
// affects both alike; each figure is the median of the rounds.
const servers = []
try {
  for (const [label, mediaType] of MEDIA_TYPES) servers.push({ label, ...(await startServer(mediaType)), get: [], list: [] })
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers) {
      const base = `https://127.0.0.1:${s.port}/api/v1/namespaces/default/configmaps`
      s.get.push(wrk(`${base}/cm-${String(Math.floor(objects / 2)).padStart(5, '0')}`))
      s.list.push(wrk(`${base}?limit=100`))
    }
  }
} finally {
  for (const s of servers) await s.stop()
}
const results = servers.map((s) => ({ label: s.label, get: median(s.get), list: median(s.list) }))

console.log(`${objects} config maps (about 2 KB each), wrk -c16 for ${seconds}s, JSON answers, median of ${ROUNDS} alternated rounds\n`)
console.log('| storage media type | operation | requests/s | p50 | p99 |')
console.log('|---|---|---:|---:|---:|')
for (const r of results) {
  console.log(`| ${r.label} | GET one object | ${r.get.rps.toFixed(0)} | ${r.get.p50} | ${r.get.p99} |`)
  console.log(`| ${r.label} | LIST 100 objects | ${r.list.rps.toFixed(0)} | ${r.list.p50} | ${r.list.p99} |`)
}
const [pb, json] = results
console.log(`\nprotobuf / json: GET ${(pb.get.rps / json.get.rps).toFixed(2)}x, LIST ${(pb.list.rps / json.list.rps).toFixed(2)}x`)
report(import.meta.url, [
  { subject: 'GET one object, stored as protobuf', figure: pb.get.rps, unit: 'requests/s', baseline: 'stored as JSON', baselineFigure: json.get.rps },
  { subject: 'LIST 100 objects, stored as protobuf', figure: pb.list.rps, unit: 'requests/s', baseline: 'stored as JSON', baselineFigure: json.list.rps },
])
