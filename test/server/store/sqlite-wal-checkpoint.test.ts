import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'

/**
 * The embedded store checkpoints its WAL itself, between its WAL syncs, and makes the database
 * file durable with an fdatasync on the thread pool (not SQLite's fsync inside a COMMIT). These
 * tests watch which file each fs.fdatasync names and hold the database file's: no write may
 * proceed (be acknowledged) before that sync completes, and nothing is lost across a reopen.
 */
describe('sqlite store: WAL checkpoints with their sync off the event loop', function () {
  this.timeout(60_000)
  const realFdatasync = fs.fdatasync
  let dir: string
  let store: SqliteStore | undefined
  /** Files named by fdatasync calls, in order. */
  let synced: string[] = []
  /** The database file's syncs requested while `holdingDb`, released by the test. */
  let heldDb: Array<() => void> = []
  let holdingDb = false

  // As /proc/self/fd names it (the temporary directory may sit behind a symbolic link).
  const dbFile = (): string => path.join(fs.realpathSync(dir), 'store.db')

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-wal-checkpoint-'))
    synced = []
    heldDb = []
    holdingDb = false
    ;(fs as { fdatasync: unknown }).fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      const file = fs.readlinkSync(`/proc/self/fd/${fd}`)
      synced.push(file)
      realFdatasync(fd, err => (holdingDb && file === dbFile() ? heldDb.push(() => cb(err)) : cb(err)))
    }
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
  })

  afterEach(async function () {
    holdingDb = false
    for (const release of heldDb.splice(0)) release()
    ;(fs as { fdatasync: unknown }).fdatasync = realFdatasync
    await store?.close()
    store = undefined
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const value = (i: number): Buffer => Buffer.from(`${i}:`.padEnd(1000, 'x'))

  it('syncs the WAL, copies it into the database file and syncs that file on the thread pool, holding writes until it is durable', async function () {
    const s = store!
    const sizeBefore = fs.statSync(dbFile()).size
    const walSyncs = (): number => synced.filter(f => f === `${dbFile()}-wal`).length
    holdingDb = true
    // One create a commit, until a checkpoint asks for the database file's sync (well over
    // SQLite's 1,000 frames of automatic checkpoint); the create that then waits is `waiting`.
    let written = 0
    let waiting: Promise<unknown> | undefined
    // WAL syncs before the last create that was acknowledged, and before the one that waits.
    let beforeAcknowledged = 0
    let beforeWaiting = 0
    while (!waiting && written < 3000) {
      beforeAcknowledged = beforeWaiting
      beforeWaiting = walSyncs()
      const create = s.create(`/c/k${String(written++).padStart(5, '0')}`, value(written))
      for (;;) {
        const settled = await Promise.race([create.then(() => true), new Promise(resolve => setTimeout(() => resolve(false), 5))])
        if (settled) break
        if (heldDb.length > 0) {
          waiting = create
          break
        }
      }
    }
    assert.ok(waiting, `a sync of the database file within ${written} creates`)
    let acknowledged = false
    void waiting.then(() => (acknowledged = true))
    assert.equal(heldDb.length, 1)
    assert.ok(fs.statSync(dbFile()).size > sizeBefore, 'the checkpoint copied pages into the database file')
    assert.equal(synced[synced.indexOf(dbFile()) - 1], `${dbFile()}-wal`, 'the WAL was not synced right before the copy')
    assert.equal(beforeWaiting, beforeAcknowledged + 2, "the last acknowledged create's WAL sync, then the checkpoint's own")

    for (let i = 0; i < 200; i++) await new Promise(resolve => setImmediate(resolve))
    assert.equal(acknowledged, false, 'a write went on before the checkpoint was durable')
    assert.equal(walSyncs(), beforeWaiting, 'a batch was synced during the checkpoint')

    holdingDb = false
    heldDb.shift()!()
    await waiting
    assert.equal((await s.get(`/c/k${String(written - 1).padStart(5, '0')}`))?.value.toString(), value(written).toString())
  })

  it("checkpoints compaction's deletions once it ends, without waiting for more writes", async function () {
    const s = store!
    const created = []
    for (let i = 0; i < 20; i++) created.push(await s.create(`/c/k${i}`, value(i)))
    for (let i = 0; i < 20; i++) await s.update(`/c/k${i}`, value(i + 100), created[i]!.modRevision)
    assert.equal(synced.includes(dbFile()), false, 'a checkpoint before the compaction')
    await s.compact(await s.currentRevision())
    for (let i = 0; i < 500 && !synced.includes(dbFile()); i++) await new Promise(resolve => setTimeout(resolve, 10))
    assert.ok(synced.includes(dbFile()), 'no checkpoint after the compaction')
    assert.equal((await s.get('/c/k3'))?.value.toString(), value(103).toString())
  })

  it('keeps every write across checkpoints and a reopen', async function () {
    let s = store!
    // At most 4 creates a commit: at least 500 commits, past the first checkpoint.
    const count = 2000
    let next = 0
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < count) {
          const i = next++
          await s.create(`/c/k${String(i).padStart(5, '0')}`, value(i))
        }
      }),
    )
    assert.ok(synced.includes(dbFile()), 'no checkpoint ran')
    await s.close()
    store = s = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    const { items } = await s.list('/c/')
    assert.equal(items.length, count)
    assert.equal(items[7]!.value.toString(), value(7).toString())
  })
})
