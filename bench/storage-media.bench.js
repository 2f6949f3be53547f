// GET and LIST throughput over HTTPS of `client server start` on the embedded store with
// `--storage-media-type=application/vnd.kubernetes.protobuf` (the default) against
// `application/json`, measured in the same run with wrk on loopback; the answers are JSON in
// both cases, so the difference is the stored encoding (decoding on every read).
// Needs the build (npm run build) and wrk.
//   node bench/storage-media.bench.js     BENCH_SECONDS=2 BENCH_OBJECTS=100 BENCH_ROUNDS=1 for a quick run
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, waitFor } from './support/net.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const objects = Number(process.env.BENCH_OBJECTS ?? 500)
if (spawnSync('wrk', ['--version']).error) {
  console.error('wrk is not installed (Debian: apt-get install wrk)')
  process.exit(1)
}

const MEDIA_TYPES = [
  ['protobuf', 'application/vnd.kubernetes.protobuf'],
  ['json', 'application/json'],
]

function wrk(url) {
  const run = spawnSync('wrk', ['-t1', '-c16', `-d${seconds}s`, '--latency', '-H', 'Accept: application/json', url], { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const p50 = /50%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const p99 = /99%\s+([\d.]+\w+)/.exec(run.stdout)?.[1]
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? '0'
  return { rps, p50, p99, errors }
}

function post(port, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': 'application/json' }, rejectUnauthorized: false },
      (res) => {
        res.resume()
        res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`POST ${path}: ${res.statusCode}`))))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

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
  const port = await freePort()
  const args = ['server', 'start', '--bind-address=127.0.0.1', `--secure-port=${port}`, `--cert-dir=${dir}/certs`, `--data-dir=${dir}/data`, `--storage-media-type=${mediaType}`]
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' })
  const stop = () => {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitFor(`https://127.0.0.1:${port}/readyz`, 200)
    let next = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < objects) await post(port, '/api/v1/namespaces/default/configmaps', configMap(next++))
      }),
    )
  } catch (err) {
    stop()
    throw err
  }
  return { port, stop }
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
  for (const s of servers) s.stop()
}
const results = servers.map((s) => ({ label: s.label, get: median(s.get), list: median(s.list) }))

console.log(`${objects} config maps (about 2 KB each), wrk -c16 for ${seconds}s, JSON answers, median of ${ROUNDS} alternated rounds\n`)
console.log('| storage media type | operation | requests/s | p50 | p99 | non-2xx |')
console.log('|---|---|---:|---:|---:|---:|')
for (const r of results) {
  console.log(`| ${r.label} | GET one object | ${r.get.rps.toFixed(0)} | ${r.get.p50} | ${r.get.p99} | ${r.get.errors} |`)
  console.log(`| ${r.label} | LIST 100 objects | ${r.list.rps.toFixed(0)} | ${r.list.p50} | ${r.list.p99} | ${r.list.errors} |`)
}
const [pb, json] = results
console.log(`\nprotobuf / json: GET ${(pb.get.rps / json.get.rps).toFixed(2)}x, LIST ${(pb.list.rps / json.list.rps).toFixed(2)}x`)
