// The server of bench/admission.bench.js: `client server start` run in this process from the
// build (dist/), with the admission chain skipped for the objects whose name starts with
// `na-` (no admission) — set up before the server starts, so that the production code holds
// no switch for it. The bench measures both sides in one server, alternately, so that nothing
// but admission differs between them: not the process, its heap, its JIT state or where it sits
// in memory (with two servers, the one started first stayed the costlier one: see
// bench/validation.bench.js and docs/performance-history.md).
// Usage: node bench/support/admission-server.js server start <server start arguments>
import fs from 'node:fs'

const dist = (p) => new URL(`../../dist/${p}`, import.meta.url).href
const { AdmissionChain } = await import(dist('server/admission/chain.js'))

const PREFIX = 'na-'
const proto = AdmissionChain.prototype
const admit = proto.admit
const validate = proto.validate
if (typeof admit !== 'function' || typeof validate !== 'function') throw new Error('AdmissionChain has no admit/validate: bench/support/admission-server.js needs updating')
const skipped = (attributes) => attributes.name.startsWith(PREFIX) || attributes.object?.metadata?.name?.startsWith(PREFIX) === true
proto.admit = function (attributes) {
  return skipped(attributes) ? Promise.resolve() : admit.call(this, attributes)
}
proto.validate = function (attributes) {
  return skipped(attributes) ? Promise.resolve() : validate.call(this, attributes)
}

const { runServer } = await import(dist('server/main.js'))
const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
const args = process.argv.slice(2)
process.exit(await runServer(args[0] === 'server' && args[1] === 'start' ? args.slice(2) : args, version))
