import assert from 'node:assert/strict'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { runStoreContract } from './contract.js'

// The scratch store (memory only, no sync) owes the API server the same behaviour, except
// that its data ends with it.
runStoreContract('sqlite scratch', async () => {
  const store = SqliteStore.scratch()
  return {
    store,
    async destroy() {
      await store.close()
    },
  }
})

describe('sqlite scratch store', function () {
  it('has no data directory and reports the size of its database', async function () {
    const store = SqliteStore.scratch()
    try {
      await store.create('/a/b', Buffer.from('x'.repeat(10_000)))
      assert.equal(store.dataDir, '')
      assert.ok((await store.dbSizeBytes()) >= 10_000)
    } finally {
      await store.close()
    }
  })
})
