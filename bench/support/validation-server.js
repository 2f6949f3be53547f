// The server of bench/validation.bench.js: `client server start` run in this process from the
// build (dist/), with the generic store's validation step replaced before the server starts, so
// that the production code holds no switch for it (a server without validation is not the
// reference). Set by the bench, read here only:
//   BENCH_SERVER_VALIDATION_OFF=1           no object is validated (create or update)
//   BENCH_SERVER_VALIDATION_OFF_PREFIX=nv-  creates of objects whose name starts with it are not
//                                           validated; the others are, as always: the bench
//                                           measures both in one server, alternately, so that
//                                           nothing but the validation differs between the two
//   BENCH_SERVER_VALIDATION_TIMES=<file>    each validated create's validation is timed; per 50
//                                           validations of a kind a line `<kind> <count>
//                                           <median µs> <p90 µs>` is appended to the file. A
//                                           validation in a loop costs a fraction of what it
//                                           costs among real requests (the caches are cold
//                                           between two of them), so the cost that matters is
//                                           measured where it is paid.
// Usage: node bench/support/validation-server.js <server start arguments>
import fs from 'node:fs'

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href
const { GenericStore } = await import(dist('server/api/registry/generic-store.js'))

const OFF = process.env.BENCH_SERVER_VALIDATION_OFF === '1'
const OFF_PREFIX = process.env.BENCH_SERVER_VALIDATION_OFF_PREFIX || undefined
const TIMES_FILE = process.env.BENCH_SERVER_VALIDATION_TIMES || undefined

const BATCH = 50
const byKind = new Map()

/** Runs `validate`, timing it (wall clock of the main thread, in µs). */
function timedValidation(kind, validate) {
  const start = process.hrtime.bigint()
  const out = validate()
  const micros = Number(process.hrtime.bigint() - start) / 1e3
  let list = byKind.get(kind)
  if (list === undefined) byKind.set(kind, (list = []))
  list.push(micros)
  if (list.length === BATCH) {
    list.sort((a, b) => a - b)
    const median = (list[BATCH / 2 - 1] + list[BATCH / 2]) / 2
    fs.appendFileSync(TIMES_FILE, `${kind} ${BATCH} ${median.toFixed(1)} ${list[Math.floor(BATCH * 0.9)].toFixed(1)}\n`)
    list.length = 0
  }
  return out
}

// The store's two validation steps (validateCreate and validateUpdate, private in TypeScript,
// plain methods at run time), replaced only as far as the settings ask.
const proto = GenericStore.prototype
const validateCreate = proto.validateCreate
const validateUpdate = proto.validateUpdate
if (typeof validateCreate !== 'function' || typeof validateUpdate !== 'function') throw new Error('GenericStore has no validateCreate/validateUpdate: bench/support/validation-server.js needs updating')
if (OFF || OFF_PREFIX !== undefined || TIMES_FILE !== undefined) {
  proto.validateCreate = function (obj) {
    if (OFF || (OFF_PREFIX !== undefined && obj.metadata.name?.startsWith(OFF_PREFIX))) return
    if (TIMES_FILE === undefined) return validateCreate.call(this, obj)
    return timedValidation(this.strategy.kind, () => validateCreate.call(this, obj))
  }
}
if (OFF) proto.validateUpdate = function () {}

const { runServer } = await import(dist('server/main.js'))
const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
process.exit(await runServer(process.argv.slice(2), version))
