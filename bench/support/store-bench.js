// What the store-level benchmarks share: the built store module and a real etcd (both
// required, with a message saying how to get them), and the ops-per-second loop.
import fs from 'node:fs'
import { etcdAvailable } from './etcd.js'

/** `openStore` from the build; exits with a message when the build or etcd is missing. */
export async function loadStoreForBench() {
  const dist = new URL('../../dist/server/store/index.js', import.meta.url)
  if (!fs.existsSync(dist)) {
    console.error('dist/server/store/index.js is missing: build first with `npm run build`')
    process.exit(1)
  }
  if (!etcdAvailable()) {
    console.error('etcd is not on PATH (set ETCD_BIN): the etcd figures need a real etcd')
    process.exit(1)
  }
  return (await import(dist.href)).openStore
}

/** Runs `op(i)` for i in [0, count) with `inFlight` calls at a time; returns ops/s. */
export async function rate(count, inFlight, op) {
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await op(next++)
    }),
  )
  return count / (Number(process.hrtime.bigint() - started) / 1e9)
}
