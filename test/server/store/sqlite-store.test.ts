import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { Store } from '../../../src/server/store/types.js'
import { runStoreContract } from './contract.js'

runStoreContract('sqlite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-sqlite-'))
  const open = (): Store => SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
  let current = open()
  return {
    store: current,
    async reopen() {
      current = open()
      return current
    },
    async destroy() {
      await current.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
})
