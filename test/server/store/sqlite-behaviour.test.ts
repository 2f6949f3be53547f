import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { CompactedError, UnavailableError } from '../../../src/server/store/errors.js'
import { DB_FILE, SqliteStore, type SqliteStoreOptions } from '../../../src/server/store/sqlite-store.js'
import { collect, rejectsWith } from './contract.js'

describe('sqlite store behaviour', function () {
  let dir: string
  let store: SqliteStore | undefined

  const open = (options: Partial<SqliteStoreOptions> = {}): SqliteStore => {
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0, ...options })
    return store
  }

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-sqlite-'))
  })

  afterEach(async function () {
    await store?.close()
    store = undefined
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('replays history older than the in-memory log from the table, while writes go on', async function () {
    this.timeout(60_000)
    const s = open({ eventLogSize: 50 })
    const first = (await s.currentRevision()) + 1
    const value = Buffer.alloc(64, 1)
    for (let i = 0; i < 2500; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => s.create(`/h/k${i + j}`, value)))
    }
    const watch = await s.watch('/h/', { fromRevision: first })
    // More writes land while the watch is still reading history chunk by chunk.
    const late = Promise.all(Array.from({ length: 500 }, (_, j) => s.create(`/h/late${j}`, value)))
    const events = await collect(watch, 3000, 30_000)
    await late
    events.forEach((ev, i) => assert.equal(ev.revision, first + i, 'no gap, no duplicate, in order'))
    assert.ok(events.every(ev => ev.type === 'create'))
    watch.cancel()
  })

  it('fills in prevValue from the table for updates and deletes in history', async function () {
    const s = open({ eventLogSize: 1 })
    const a = await s.create('/p/a', Buffer.from('1'))
    const a2 = await s.update('/p/a', Buffer.from('2'), a.modRevision)
    await s.delete('/p/a')
    await s.create('/p/a', Buffer.from('3'))
    await s.create('/p/filler', Buffer.from('f'))
    await s.create('/p/filler2', Buffer.from('f'))
    const watch = await s.watch('/p/a', { exact: true, fromRevision: a.modRevision })
    const events = await collect(watch, 4)
    assert.deepEqual(
      events.map(e => [e.type, e.value?.toString(), e.prevValue?.toString(), e.prevModRevision]),
      [
        ['create', '1', undefined, undefined],
        ['update', '2', '1', a.modRevision],
        ['delete', undefined, '2', a2.modRevision],
        ['create', '3', undefined, undefined],
      ],
    )
    watch.cancel()
  })

  it("gives a live event's prevValue as the previous write's own value, not a second copy", async function () {
    const s = open()
    const watch = await s.watch('/share/')
    const a = await s.create('/share/a', Buffer.from('1'))
    await s.update('/share/a', Buffer.from('2'), a.modRevision)
    await s.delete('/share/a')
    const [created, updated, deleted] = await collect(watch, 3)
    // The same bytes as before, and the very Buffer the previous event holds: an event window
    // keeps each value once.
    assert.deepEqual([updated!.prevValue?.toString(), deleted!.prevValue?.toString()], ['1', '2'])
    assert.equal(updated!.prevValue, created!.value)
    assert.equal(deleted!.prevValue, updated!.value)
    watch.cancel()
  })

  it('breaks a watch whose consumer stopped reading, with a retryable error', async function () {
    const s = open({ watchBufferLimit: 10 })
    const watch = await s.watch('/slow/')
    for (let i = 0; i < 11; i++) await s.create(`/slow/k${i}`, Buffer.from('x'))
    const events = await collect(watch, 10)
    assert.equal(events.length, 10)
    const err = await rejectsWith(watch.next(), UnavailableError, 'Unavailable')
    assert.equal(err.retryable, true)
    assert.match(err.message, /fell more than 10 events behind/)
  })

  it('compacts periodically to the revision of the previous tick, and removes old versions', async function () {
    this.timeout(10_000)
    const s = open({ compactionIntervalMs: 100 })
    let kv = await s.create('/c/k', Buffer.from('0'))
    const firstRev = kv.modRevision
    for (let i = 1; i < 50; i++) kv = await s.update('/c/k', Buffer.from(String(i)), kv.modRevision)
    const rowsBefore = countRows()
    await new Promise(resolve => setTimeout(resolve, 450))
    await rejectsWith(s.list('/c/', { revision: firstRev }), CompactedError, 'Compacted')
    assert.equal((await s.get('/c/k'))?.value.toString(), '49')
    assert.ok(countRows() < rowsBefore, `compaction removed rows (${rowsBefore} → ${countRows()})`)
    await s.close()
    // The compacted revision survives a restart.
    const again = open()
    await rejectsWith(again.watch('/c/', { fromRevision: firstRev }), CompactedError, 'Compacted')
    assert.equal((await again.get('/c/k'))?.modRevision, kv.modRevision)
  })

  it('fails a watch still catching up when compaction overtakes it', async function () {
    const s = open({ eventLogSize: 1 })
    const first = (await s.currentRevision()) + 1
    await Promise.all(Array.from({ length: 3000 }, (_, i) => s.create(`/o/k${i}`, Buffer.from('x'))))
    const watch = await s.watch('/o/', { fromRevision: first })
    await s.compact(await s.currentRevision())
    let delivered = 0
    try {
      for await (const _ of watch) delivered++
      assert.fail('the watch should have failed')
    } catch (err) {
      assert.ok(err instanceof CompactedError, String(err))
    }
    assert.ok(delivered < 3000)
  })

  it('answers a list repeated at the same revision as the table does, after writes, deletes and compaction', async function () {
    const s = open()
    const keys = async (options = {}) => (await s.list('/services/', options)).items.map((kv) => `${kv.key}=${kv.value.toString()}`)
    const first = await s.create('/services/default/a', Buffer.from('1'))
    assert.deepEqual(await keys(), ['/services/default/a=1'])
    assert.deepEqual(await keys(), ['/services/default/a=1'])
    await s.create('/services/default/b', Buffer.from('2'))
    await s.update('/services/default/a', Buffer.from('3'), first.modRevision)
    assert.deepEqual(await keys(), ['/services/default/a=3', '/services/default/b=2'])
    assert.deepEqual(await keys({ revision: first.modRevision }), ['/services/default/a=1'])
    assert.deepEqual(await keys({ limit: 1 }), ['/services/default/a=3'])
    const gone = await s.delete('/services/default/b')
    assert.deepEqual(await keys(), ['/services/default/a=3'])
    await s.compact(gone.revision)
    await rejectsWith(s.list('/services/', { revision: first.modRevision }), CompactedError, 'Compacted')
    assert.deepEqual(await keys(), ['/services/default/a=3'])
  })

  it('commits concurrent writes together, each acknowledged durably', async function () {
    const s = open()
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => s.create(`/g/k${i}`, Buffer.from(String(i)))))
    assert.equal(new Set(results.map(r => r.modRevision)).size, 500)
    await s.close()
    store = undefined
    const db = new Database(path.join(dir, DB_FILE), { readonly: true })
    const n = (db.prepare('SELECT COUNT(*) AS n FROM kv').get() as { n: number }).n
    db.close()
    assert.equal(n, 500)
  })

  it('fails its health check when the database file is removed from under it', async function () {
    const s = open()
    await s.healthCheck(1_000)
    fs.rmSync(path.join(dir, DB_FILE))
    const err = await rejectsWith(s.healthCheck(1_000), UnavailableError, 'Unavailable')
    assert.match(err.message, /disappeared/)
  })

  it('reports a TTL deletion that fails to write, as it reports its other background errors', async function () {
    this.timeout(30_000)
    const reported: unknown[] = []
    const s = open({ expirySweepIntervalMs: 50, onBackgroundError: (err) => reported.push(err) })
    await s.create('/ttl/fine', Buffer.from('f'), { ttlSeconds: 1 })
    const watch = await s.watch('/ttl/', { fromRevision: (await s.currentRevision()) + 1 })
    assert.equal((await collect(watch, 1, 15_000))[0]!.key, '/ttl/fine')
    assert.deepEqual(reported, [], 'an ordinary expiry reports nothing')

    // A real write failure of the deletion: the store's own connection (it holds the file's
    // exclusive lock) gets a trigger that aborts writing a deletion.
    const db = (store as unknown as { db: Database.Database }).db
    db.exec(`CREATE TRIGGER refuse_deletions BEFORE INSERT ON kv WHEN NEW.deleted = 1 BEGIN SELECT RAISE(ABORT, 'deletion refused by the test'); END`)
    await s.create('/ttl/stuck', Buffer.from('s'), { ttlSeconds: 1 })
    const deadline = Date.now() + 15_000
    while (reported.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    watch.cancel()
    assert.ok(reported.length > 0, 'the failed deletion was not reported')
    assert.match(String((reported[0] as Error).message), /deletion refused by the test/)
    assert.equal((await s.get('/ttl/stuck'))?.value.toString(), 's', 'nothing half-written')
  })

  function countRows(): number {
    // Through the store's own connection: it holds SQLite's exclusive lock, so no other
    // connection may read the file meanwhile.
    const db = (store as unknown as { db: Database.Database }).db
    return (db.prepare('SELECT COUNT(*) AS n FROM kv').get() as { n: number }).n
  }
})
