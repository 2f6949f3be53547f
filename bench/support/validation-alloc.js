// What one validation of the validation bench's Pod and Deployment costs in process, in figures
// a loaded machine disturbs little: CPU µs per call (process.cpuUsage, after a long warm-up, the
// median of several rounds, with Node's default heap) and bytes allocated per call (in a second
// process with a 64 MB young generation: the growth of the used heap over a batch of calls after
// a full collection, with no collection during the batch: checked, a batch with one is not
// counted). The objects are prepared (decoded from JSON, defaulted) before the measured loop, so
// only validateForCreate is counted. Needs the build (npm run build).
//   node bench/support/validation-alloc.js
//   VALIDATION_ALLOC_CALLS=n (default 20000)  calls per round
//   VALIDATION_ALLOC_ROUNDS=n (default 7)     rounds per kind; the median is printed
//   VALIDATION_ALLOC_DIST=dir                 another build's dist/ (an A/B comparison with the same objects)
//   VALIDATION_ALLOC_PROFILE=file             also a CPU profile of the measured rounds (.cpuprofile)
import inspector from 'node:inspector/promises'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { deployment, pod, preparedForValidation } from './validation-objects.js'

const distDir = process.env.VALIDATION_ALLOC_DIST ? pathToFileURL(`${path.resolve(process.env.VALIDATION_ALLOC_DIST)}/`) : new URL('../../dist/', import.meta.url)
const dist = (p) => new URL(p, distDir).href
const { BUILTIN_KINDS } = await import(dist('server/api/kinds/builtin.js'))
const { validateForCreate } = await import(dist('server/api/registry/strategy.js'))

const CALLS = Number(process.env.VALIDATION_ALLOC_CALLS ?? 20000)
const ROUNDS = Number(process.env.VALIDATION_ALLOC_ROUNDS ?? 7)
const WARM_CALLS = 30000
// Distinct objects, reused round-robin: one object validated again and again would stay in the
// CPU's caches, which a server's fresh objects never are; 512 are a few MB, beyond the caches.
const POOL = 512

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
/** The second process, which measures the bytes; the first measures the CPU. */
const BYTES = process.env.VALIDATION_ALLOC_MODE === 'bytes'
const gc = globalThis.gc
/** Calls per allocation batch: ~20 KB each stays well inside a 64 MB semi-space. */
const BATCH = 500
let collections = 0
new PerformanceObserver((list) => (collections += list.getEntries().length)).observe({ entryTypes: ['gc'] })
/** Bytes allocated per call over a batch with no collection in it (undefined if one ran). */
async function bytesPerCall(run) {
  gc()
  // The observer reports asynchronously: let the forced collection's entry arrive first.
  await new Promise((r) => setTimeout(r, 50))
  const before = collections
  const h0 = process.memoryUsage().heapUsed
  run(BATCH)
  const grown = process.memoryUsage().heapUsed - h0
  await new Promise((r) => setTimeout(r, 50))
  return collections === before ? grown / BATCH : undefined
}

let session
if (process.env.VALIDATION_ALLOC_PROFILE && !BYTES) {
  session = new inspector.Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
}

const results = []
for (const [label, group, resource, make] of [
  ['Pod', '', 'pods', pod],
  ['Deployment', 'apps', 'deployments', deployment],
]) {
  const strategy = BUILTIN_KINDS.find((k) => k.group === group && k.resource === resource)
  const objects = []
  for (let i = 0; i < POOL; i++) {
    const o = preparedForValidation(make, `x${i}`)
    strategy.prepareForCreate(o)
    objects.push(o)
  }
  const run = (calls) => {
    for (let i = 0; i < calls; i++) {
      const errs = validateForCreate(strategy, objects[i % POOL])
      if (errs.length > 0) throw new Error(`${label} is invalid: ${errs.map(String).join('; ')}`)
    }
  }
  run(WARM_CALLS)
  if (session && !BYTES && results.length === 0) await session.post('Profiler.start')
  const micros = []
  const bytes = []
  for (let r = 0; r < ROUNDS; r++) {
    if (BYTES) {
      const b = await bytesPerCall(run)
      if (b !== undefined) bytes.push(b)
      continue
    }
    const c0 = process.cpuUsage()
    run(CALLS)
    const c = process.cpuUsage(c0)
    micros.push((c.user + c.system) / CALLS)
  }
  results.push({ label, micros: BYTES ? 0 : median(micros), bytes: bytes.length > 0 ? median(bytes) : Number.NaN, spread: [Math.min(...micros), Math.max(...micros)] })
}
if (BYTES) {
  process.stdout.write(JSON.stringify(results.map((r) => r.bytes)))
  process.exit(0)
}
const child = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=64', '--min-semi-space-size=64', fileURLToPath(import.meta.url)], { env: { ...process.env, VALIDATION_ALLOC_MODE: 'bytes', VALIDATION_ALLOC_PROFILE: '' }, encoding: 'utf8' })
if (child.status !== 0) throw new Error(`the bytes process failed: ${child.stderr}`)
JSON.parse(child.stdout).forEach((b, i) => (results[i].bytes = b))
if (session) {
  const { profile } = await session.post('Profiler.stop')
  fs.writeFileSync(process.env.VALIDATION_ALLOC_PROFILE, JSON.stringify(profile))
  session.disconnect()
}
for (const r of results) {
  console.log(`${r.label.padEnd(10)} ${r.micros.toFixed(2).padStart(7)} µs CPU per validation (rounds ${r.spread.map((x) => x.toFixed(2)).join('-')})  ${Math.round(r.bytes).toString().padStart(6)} bytes allocated per validation`)
}
