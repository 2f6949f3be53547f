// Opens the embedded store on a data directory and keeps it open until killed, so tests
// can meet a data directory locked by another process. Prints "ready <pid>" once open.
import { SqliteStore } from '../../src/server/store/sqlite-store.js'

const dataDir = process.argv[2]
if (!dataDir) {
  console.error('usage: store-holder.ts <data-dir>')
  process.exit(2)
}
const store = SqliteStore.open({ dataDir, compactionIntervalMs: 0 })
process.stdout.write(`ready ${process.pid}\n`)
const keepAlive = setInterval(() => {}, 60_000)
process.on('SIGTERM', () => {
  clearInterval(keepAlive)
  void store.close().then(() => process.exit(0))
})
