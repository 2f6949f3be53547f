// The API path of issue 18 (item 2), against the baselines its goals name, in the same run:
//   - create of a small ConfigMap with 8 clients: the embedded store against a bare Node HTTPS
//     server that parses the JSON body and answers 201 with it; etcd against raw etcd puts
//     from Node (etcd3, 8 in flight);
//   - GET of one object with 8 clients: embedded against the bare server answering the
//     object's JSON; etcd against raw etcd gets (etcd3, 8 in flight);
//   - GET of one object and LIST of 500 asked as protobuf against the same asked as JSON;
//   - a consistent LIST of 500 (no resourceVersion: from the watch cache once it proved itself
//     fresh) against the same list read from the store (resourceVersionMatch=Exact at the
//     current revision, which the cache never answers) and against resourceVersion=0 (the
//     cache as it is, without the freshness check).
// HTTP load comes from wrk (8 keep-alive connections on loopback, the administrator's bearer
// token; creates use generateName so one body makes new objects). Rounds are interleaved and
// each figure is the median of its rounds, so the load of a shared machine falls on all
// alike. The servers' CPU time per request (/proc/<pid>/stat) is printed too: it barely moves
// with other load; so is this process's CPU per operation of its in-process loops (the raw
// etcd rows: the etcd3 client's cost per call, against the API server's per request).
// Goals: create ≥ 0.5 of bare (embedded), ≥ 0.6 of raw puts (etcd); GET ≥ 0.5 of bare
// (embedded), ≥ 0.6 of raw gets (etcd); protobuf GET and LIST ≥ 1x JSON's rate.
// A row without a goal reads the embedded create against the embedded store alone (in this
// process, 8 in flight): a durable create is bounded by the disk's sync latency, which the
// bare server does not pay.
// The GET and LIST rows of the embedded server and the bare server run pinned (support/cpu-pin.js:
// the server measured, or the bare baseline in its turn, on the same CPUs, wrk on the others;
// unpinned, back-to-back runs of one bare server varied 2x); the create and etcd rows run
// unpinned as before (etcd and the store's commit thread share the machine). BENCH_PIN=0: none.
// The etcd create row also reads as CPU (no goal): the server's CPU per create against the etcd3
// client's per put, the figure that stays put on a busy machine. The etcd rows are not pinned:
// three processes (etcd, the server or the raw client, wrk) on 2 CPUs have no placement that
// leaves the comparison alone (docs/performance-history.md, "Seventh round: the create path").
// The embedded and bare GET and LIST rows are warmed up for BENCH_WARMUP_SECONDS each (default 6).
// Needs the build, wrk and etcd.   BENCH_SECONDS (per round, default 3), BENCH_ROUNDS (default 3)
import { fork } from 'node:child_process'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Etcd3 } from 'etcd3'
import { pinPid, pinningNote, pinned, unpinPid } from './support/cpu-pin.js'
import { etcdAvailable, startEtcd } from './support/etcd.js'
import { freePort } from './support/net.js'
import { meets, report } from './support/report.js'
import { ADMIN_TOKEN, startServer } from './support/server.js'
import { toolCommand } from './support/tools.js'
import { requireWrk } from './support/wrk.js'
import { loadStoreForBench } from './support/store-bench.js'

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
// The pinned GET and LIST rows (and the bare GET) are warmed up first, not measured: a fresh
// server's first seconds of GETs cost 4x the steady state's CPU per request (the JIT's warm-up).
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 6)
const CLIENTS = 8
const LIST_SIZE = 500
const PROTOBUF = 'application/vnd.kubernetes.protobuf'
requireWrk()
if (!etcdAvailable()) {
  console.error('etcd is not on PATH (set ETCD_BIN): the etcd figures need a real etcd')
  process.exit(1)
}

/** A ConfigMap of about 1 KiB; `generateName` lets one body create a new object each time. */
function configMap(metadata) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { app: 'bench' }, ...metadata }, data: { payload: 'x'.repeat(900) } }
}
/** Roughly what the API stores for one: the raw etcd rows write and read values of this size. */
const storedValue = Buffer.from(JSON.stringify(configMap({ name: 'c', namespace: 'bench', uid: '5f1c3a52-0b0e-4d5b-9d7b-1b2c3d4e5f60', creationTimestamp: '2026-01-01T00:00:00Z' })))

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const scratch = mkdtempSync(join(tmpdir(), 'client-bench-api-path-'))
const postScript = join(scratch, 'post.lua')
writeFileSync(
  postScript,
  `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${JSON.stringify(configMap({ generateName: 'c-' }))}'\n`,
)

/** One wrk run: requests/s and the server's CPU µs per request. */
function wrk(url, { pid, post = false, accept = 'application/json', pin = false, duration = seconds }) {
  // Pinned rows: the server (pid) on the 'server' CPUs, wrk on the others; otherwise both float.
  if (pin) pinPid(pid, 'server')
  else unpinPid(pid)
  const before = cpuSeconds(pid)
  const args = ['-t1', `-c${CLIENTS}`, `-d${duration}s`, '-H', `Authorization: Bearer ${ADMIN_TOKEN}`, '-H', `Accept: ${accept}`]
  if (post) args.push('-s', postScript)
  const run = spawnSync(...(pin ? pinned(toolCommand('wrk'), [...args, url], 'load') : [toolCommand('wrk'), [...args, url]]), { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`wrk ${url} exited ${run.status}: ${run.stderr}`)
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)?.[1])
  const requests = Number(/(\d+) requests in/.exec(run.stdout)?.[1])
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? 0)
  if (non2xx > 0) throw new Error(`wrk ${url}: ${non2xx} of ${requests} answers were not 2xx; the figure would measure errors`)
  if (!Number.isFinite(rps) || rps === 0) throw new Error(`wrk ${url}: no requests/s in its output:\n${run.stdout}${run.stderr}`)
  return { rps, cpuUs: ((cpuSeconds(pid) - before) / requests) * 1e6 }
}

/**
 * `op()` with `CLIENTS` in flight for `seconds`: operations per second, and this process's CPU
 * µs per operation (all its threads: for the raw etcd rows, what the etcd3 client costs per
 * call, to read against the API server's CPU per request).
 */
async function loop(op) {
  let count = 0
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9))
  const started = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (process.hrtime.bigint() < end) {
        await op(count++)
      }
    }),
  )
  const used = process.cpuUsage(cpu)
  return { rps: count / (Number(process.hrtime.bigint() - started) / 1e9), cpuUs: (used.user + used.system) / count }
}

/** One reader's GETs per second for `seconds`, alone or while `CLIENTS` writers create. */
async function readerLoop(store, withWriters, round = 0) {
  let gets = 0
  let writes = 0
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9))
  const started = process.hrtime.bigint()
  const writers = withWriters
    ? Array.from({ length: CLIENTS }, async () => {
        while (process.hrtime.bigint() < end) await store.create(`/configmaps/bench/w${round}-${writes++}`, storedValue)
      })
    : []
  while (process.hrtime.bigint() < end) {
    await store.get('/configmaps/bench/r1-0')
    gets++
    // A turn of the event loop per GET, as a server's requests get.
    await new Promise((resolve) => setImmediate(resolve))
  }
  await Promise.all(writers)
  return { rps: gets / (Number(process.hrtime.bigint() - started) / 1e9) }
}

/** The bare server as a child process (so that wrk and this process do not share its loop). */
async function startBare() {
  const port = await freePort()
  const child = fork(fileURLToPath(new URL('./support/bare-api.js', import.meta.url)), [String(port), join(scratch, 'tls.crt'), join(scratch, 'tls.key')], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`the bare server exited ${code}`)))
  })
  return { port, pid: child.pid, stop: () => child.kill('SIGKILL') }
}

const results = new Map()
function add(name, figure) {
  if (!results.has(name)) results.set(name, [])
  results.get(name).push(figure)
  console.error(`  ${name.padEnd(52)} ${Math.round(figure.rps)}/s${figure.cpuUs ? `  ${Math.round(figure.cpuUs)} µs CPU/request` : ''}`)
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const figure = (name) => ({ rps: median(results.get(name).map((f) => f.rps)), cpuUs: results.get(name)[0].cpuUs === undefined ? undefined : median(results.get(name).map((f) => f.cpuUs)) })

const etcd = await startEtcd()
const stops = [() => etcd.stop()]
try {
  const embedded = await startServer(join(scratch, 'embedded'))
  stops.push(() => embedded.stop())
  const onEtcd = await startServer(join(scratch, 'etcd'), [`--store-servers=${etcd.clientUrl}`, '--store-prefix=/bench-api-path'])
  stops.push(() => onEtcd.stop())
  // The bare server presents the same kind of serving certificate as the API servers.
  writeFileSync(join(scratch, 'tls.crt'), readFileSync(join(scratch, 'embedded', 'certs', 'apiserver.crt')))
  writeFileSync(join(scratch, 'tls.key'), readFileSync(join(scratch, 'embedded', 'certs', 'apiserver.key')))
  const bare = await startBare()
  stops.push(() => bare.stop())
  const raw = new Etcd3({ hosts: etcd.clientUrl })
  stops.push(() => raw.close())
  // The embedded store alone (in this process, as the server runs it): what a durable create
  // costs before any HTTP, for the API's create row to be read against.
  const openStore = await loadStoreForBench()
  const storeAlone = await openStore({ dataDir: join(scratch, 'store-alone'), prefix: '/registry', compactionIntervalMs: 0 })
  stops.push(() => storeAlone.close())

  const cms = (server) => `https://127.0.0.1:${server.port}/api/v1/namespaces/bench/configmaps`
  for (const server of [embedded, onEtcd]) {
    await server.admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } } })
    await server.admin('POST', '/api/v1/namespaces/bench/configmaps', { body: configMap({ name: 'one' }) })
    await server.admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'list' } } })
    let next = 0
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < LIST_SIZE) await server.admin('POST', '/api/v1/namespaces/list/configmaps', { body: configMap({ name: `c${String(next++).padStart(4, '0')}` }) })
      }),
    )
  }
  await raw.put('/raw/one').value(storedValue)
  const listUrl = (server) => `https://127.0.0.1:${server.port}/api/v1/namespaces/list/configmaps`
  /** The list read from the store: Exact at the revision the list is at now (no writes to it later). */
  const exactUrl = async (server) => {
    const { metadata } = JSON.parse(await server.admin('GET', '/api/v1/namespaces/list/configmaps?limit=1'))
    return `${listUrl(server)}?resourceVersion=${metadata.resourceVersion}&resourceVersionMatch=Exact`
  }

  // Warm-up of the pinned read rows, the bare baseline's GET alike (same duration, not recorded).
  if (warmupSeconds > 0) {
    console.error(`warm-up: ${warmupSeconds} s per read row`)
    wrk(`https://127.0.0.1:${bare.port}/api/v1/namespaces/bench/configmaps/one`, { pid: bare.pid, pin: true, duration: warmupSeconds })
    wrk(`${cms(embedded)}/one`, { pid: embedded.child.pid, pin: true, duration: warmupSeconds })
    wrk(`${cms(embedded)}/one`, { pid: embedded.child.pid, accept: PROTOBUF, pin: true, duration: warmupSeconds })
    wrk(listUrl(embedded), { pid: embedded.child.pid, pin: true, duration: warmupSeconds })
    wrk(listUrl(embedded), { pid: embedded.child.pid, accept: PROTOBUF, pin: true, duration: warmupSeconds })
  }
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round} of ${rounds}`)
    // Read again each round: a revision of the previous round may be compacted by now.
    const exact = { embedded: await exactUrl(embedded), etcd: await exactUrl(onEtcd) }
    add('bare: create', wrk(`https://127.0.0.1:${bare.port}/api/v1/namespaces/bench/configmaps`, { pid: bare.pid, post: true }))
    add('bare: get', wrk(`https://127.0.0.1:${bare.port}/api/v1/namespaces/bench/configmaps/one`, { pid: bare.pid, pin: true }))
    add('embedded: create', wrk(cms(embedded), { pid: embedded.child.pid, post: true }))
    add('embedded: get', wrk(`${cms(embedded)}/one`, { pid: embedded.child.pid, pin: true }))
    add('embedded: get (protobuf)', wrk(`${cms(embedded)}/one`, { pid: embedded.child.pid, accept: PROTOBUF, pin: true }))
    add(`embedded: list ${LIST_SIZE}`, wrk(`https://127.0.0.1:${embedded.port}/api/v1/namespaces/list/configmaps`, { pid: embedded.child.pid, pin: true }))
    add(`embedded: list ${LIST_SIZE} (protobuf)`, wrk(`https://127.0.0.1:${embedded.port}/api/v1/namespaces/list/configmaps`, { pid: embedded.child.pid, accept: PROTOBUF, pin: true }))
    add(`embedded: list ${LIST_SIZE} from the store (Exact)`, wrk(exact.embedded, { pid: embedded.child.pid, pin: true }))
    add(`embedded: list ${LIST_SIZE} at resourceVersion=0`, wrk(`${listUrl(embedded)}?resourceVersion=0`, { pid: embedded.child.pid, pin: true }))
    add('embedded store alone: create', await loop((i) => storeAlone.create(`/configmaps/bench/r${round}-${i}`, storedValue)))
    // The event loop while the store commits: one reader's GETs alone, then beside 8 writers.
    add('embedded store alone: get, 1 reader', await readerLoop(storeAlone, false))
    add('embedded store alone: get, 1 reader beside 8 writers', await readerLoop(storeAlone, true, round))
    add('raw etcd: put', await loop((i) => raw.put(`/raw/r${round}-${i}`).value(storedValue)))
    add('raw etcd: get', await loop(() => raw.get('/raw/one').buffer()))
    add('etcd: create', wrk(cms(onEtcd), { pid: onEtcd.child.pid, post: true }))
    add('etcd: get', wrk(`${cms(onEtcd)}/one`, { pid: onEtcd.child.pid }))
    add(`etcd: list ${LIST_SIZE}`, wrk(listUrl(onEtcd), { pid: onEtcd.child.pid }))
    add(`etcd: list ${LIST_SIZE} (protobuf)`, wrk(listUrl(onEtcd), { pid: onEtcd.child.pid, accept: PROTOBUF }))
    add(`etcd: list ${LIST_SIZE} from the store (Exact)`, wrk(exact.etcd, { pid: onEtcd.child.pid }))
    add(`etcd: list ${LIST_SIZE} at resourceVersion=0`, wrk(`${listUrl(onEtcd)}?resourceVersion=0`, { pid: onEtcd.child.pid }))
  }

  console.log(`\nGET and LIST rows of the embedded and bare servers: ${pinningNote()}; each warmed up for ${warmupSeconds} s first`)
  console.log(`\n| subject (${CLIENTS} clients, median of ${rounds} rounds of ${seconds} s) | per second | CPU µs/request (the server's; in-process rows: this process's) |`)
  console.log('|---|---:|---:|')
  for (const name of results.keys()) {
    const f = figure(name)
    console.log(`| ${name} | ${Math.round(f.rps).toLocaleString('en-US')} | ${f.cpuUs === undefined ? '' : Math.round(f.cpuUs).toLocaleString('en-US')} |`)
  }
  const row = (subject, name, baseline, baseName, goal) => {
    const ratio = figure(name).rps / figure(baseName).rps
    return { subject, figure: figure(name).rps, unit: 'requests/s', baseline, baselineFigure: figure(baseName).rps, ratio, goal, met: goal === undefined ? undefined : meets(ratio, goal) }
  }
  report(import.meta.url, [
    row(`create, ${CLIENTS} clients, embedded store`, 'embedded: create', 'bare Node HTTPS parsing the body, 201', 'bare: create', '≥ 0.5x'),
    row(`create, ${CLIENTS} clients, embedded store`, 'embedded: create', `the embedded store alone (${CLIENTS} in flight)`, 'embedded store alone: create'),
    row(`embedded store: GETs of one reader beside ${CLIENTS} writers (commits off the event loop)`, 'embedded store alone: get, 1 reader beside 8 writers', 'the same reader alone', 'embedded store alone: get, 1 reader'),
    row(`create, ${CLIENTS} clients, etcd`, 'etcd: create', `raw etcd puts (etcd3, ${CLIENTS} in flight)`, 'raw etcd: put', '≥ 0.6x'),
    {
      subject: `create, ${CLIENTS} clients, etcd: the server's CPU per create`,
      figure: figure('etcd: create').cpuUs,
      unit: 'µs',
      baseline: "raw etcd puts: the etcd3 client's CPU per put",
      baselineFigure: figure('raw etcd: put').cpuUs,
    },
    row(`GET of one object, ${CLIENTS} clients, embedded store`, 'embedded: get', 'bare Node HTTPS answering its JSON', 'bare: get', '≥ 0.5x'),
    row(`GET of one object, ${CLIENTS} clients, etcd`, 'etcd: get', `raw etcd gets (etcd3, ${CLIENTS} in flight)`, 'raw etcd: get', '≥ 0.6x'),
    row(`GET of one object as protobuf, embedded store`, 'embedded: get (protobuf)', 'the same as JSON', 'embedded: get', '≥ 1x'),
    row(`LIST of ${LIST_SIZE} as protobuf, embedded store`, `embedded: list ${LIST_SIZE} (protobuf)`, 'the same as JSON', `embedded: list ${LIST_SIZE}`, '≥ 1x'),
    row(`LIST of ${LIST_SIZE} as protobuf, etcd`, `etcd: list ${LIST_SIZE} (protobuf)`, 'the same as JSON', `etcd: list ${LIST_SIZE}`, '≥ 1x'),
    row(`consistent LIST of ${LIST_SIZE} (JSON), embedded store`, `embedded: list ${LIST_SIZE}`, 'the same read from the store (Exact)', `embedded: list ${LIST_SIZE} from the store (Exact)`),
    row(`consistent LIST of ${LIST_SIZE} (JSON), embedded store`, `embedded: list ${LIST_SIZE}`, 'resourceVersion=0 (the cache, unchecked)', `embedded: list ${LIST_SIZE} at resourceVersion=0`),
    row(`consistent LIST of ${LIST_SIZE} (JSON), etcd`, `etcd: list ${LIST_SIZE}`, 'the same read from etcd (Exact)', `etcd: list ${LIST_SIZE} from the store (Exact)`),
    row(`consistent LIST of ${LIST_SIZE} (JSON), etcd`, `etcd: list ${LIST_SIZE}`, 'resourceVersion=0 (the cache, unchecked)', `etcd: list ${LIST_SIZE} at resourceVersion=0`),
  ])
} finally {
  for (const stop of stops.reverse()) await stop()
  rmSync(scratch, { recursive: true, force: true })
}
