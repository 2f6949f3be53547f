// Writes keys on a store as fast as it can and prints every key whose write was
// acknowledged ("ack <key>"), until it is killed. Used by the kill -9 crash tests:
// whatever it printed must survive the crash.
//   node --import tsx test/support/store-crash-writer.ts sqlite <data-dir>
//   node --import tsx test/support/store-crash-writer.ts etcd <client-url> <prefix>
import { EtcdStore } from '../../src/server/store/etcd-store.js'
import { SqliteStore } from '../../src/server/store/sqlite-store.js'
import type { Store } from '../../src/server/store/types.js'

const [kind, target, prefix] = process.argv.slice(2)
const WRITERS = 8

async function open(): Promise<Store> {
  if (kind === 'sqlite' && target) return SqliteStore.open({ dataDir: target, compactionIntervalMs: 0 })
  if (kind === 'etcd' && target) {
    return EtcdStore.open({ servers: [target], prefix: prefix ?? '/crash', compactionIntervalMs: 0, initializationTimeoutMs: 10_000 })
  }
  console.error('usage: store-crash-writer.ts sqlite <data-dir> | etcd <client-url> <prefix>')
  process.exit(2)
}

const store = await open()
process.stdout.write(`ready ${process.pid}\n`)
let next = 0
const value = Buffer.alloc(512, 7)
await Promise.all(
  Array.from({ length: WRITERS }, async () => {
    for (;;) {
      const key = `/crash/k${String(next++).padStart(7, '0')}`
      await store.create(key, value)
      process.stdout.write(`ack ${key}\n`)
    }
  }),
)
