import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { UnavailableError } from '../../../src/server/store/errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { WatchEvent } from '../../../src/server/store/types.js'

/**
 * The embedded store syncs its write-ahead log on the thread pool (fs.fdatasync) instead of
 * inside COMMIT. These tests hold or fail that sync to check that nothing of a write is
 * acknowledged, visible or published before it is durable, and that one sync covers every
 * batch committed while the previous one ran.
 */
describe('sqlite store: the WAL sync off the event loop', function () {
  const realFdatasync = fs.fdatasync
  let dir: string
  let store: SqliteStore | undefined
  /** Callbacks of syncs requested while `holding`, in order. */
  let held: Array<() => void> = []
  let holding = false
  let calls = 0
  let failWith: NodeJS.ErrnoException | undefined

  const walFile = (): string => path.join(dir, 'store.db-wal')

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-wal-sync-'))
    held = []
    holding = false
    calls = 0
    failWith = undefined
    ;(fs as { fdatasync: unknown }).fdatasync = (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      calls++
      if (failWith) {
        const err = failWith
        setImmediate(() => cb(err))
        return
      }
      // The real sync runs; its answer is handed back only when the test releases it.
      realFdatasync(fd, err => (holding ? held.push(() => cb(err)) : cb(err)))
    }
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
  })

  afterEach(async function () {
    holding = false
    for (const release of held.splice(0)) release()
    ;(fs as { fdatasync: unknown }).fdatasync = realFdatasync
    await store?.close()
    store = undefined
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /**
   * Waits until `n` syncs are held: event-loop turns first, then (a loaded machine's thread
   * pool can take longer to start the sync) short sleeps, for at most 5 s.
   */
  async function syncsHeld(n: number): Promise<void> {
    for (let i = 0; i < 10_000 && held.length < n; i++) await new Promise(resolve => setImmediate(resolve))
    const deadline = Date.now() + 5000
    while (held.length < n && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 5))
    assert.equal(held.length, n, `${n} sync(s) held`)
  }

  it('acknowledges, shows and publishes a write only once the sync of the WAL completed', async function () {
    const s = store!
    const before = await s.currentRevision()
    const watch = await s.watch('/d/')
    const events: WatchEvent[] = []
    void (async () => {
      for await (const ev of watch) events.push(ev)
    })()
    holding = true
    let acknowledged = false
    const created = s.create('/d/a', Buffer.from('v')).then(kv => ((acknowledged = true), kv))
    await syncsHeld(1)
    assert.ok(fs.statSync(walFile()).size > 0, 'the commit is in the WAL')
    assert.equal(acknowledged, false, 'acknowledged before its sync')
    assert.equal(await s.get('/d/a'), null, 'visible to a GET before its sync')
    assert.deepEqual((await s.list('/d/')).items, [], 'visible to a LIST before its sync')
    assert.equal(await s.currentRevision(), before, 'the revision moved before the sync')
    assert.equal(events.length, 0, 'published to a watch before its sync')

    holding = false
    held.shift()!()
    const kv = await created
    assert.equal(kv.modRevision, before + 1)
    assert.equal((await s.get('/d/a'))?.value.toString(), 'v', 'an acknowledged write is visible to the next GET')
    assert.equal(await s.currentRevision(), before + 1)
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise(resolve => setImmediate(resolve))
    assert.deepEqual(
      events.map(e => [e.type, e.key, e.revision]),
      [['create', '/d/a', before + 1]],
    )
    watch.cancel()
  })

  it('answers GETs of a key read before from what it remembers, and shows each later write (update, delete, create) once durable, not before', async function () {
    const s = store!
    const created = await s.create('/r/a', Buffer.from('one'))
    const first = s.getNow('/r/a')
    assert.equal(first?.value.toString(), 'one')
    assert.equal(s.getNow('/r/a'), first, 'a second GET of an unchanged key read SQLite again')

    holding = true
    const updated = s.update('/r/a', Buffer.from('two'), created.modRevision)
    await syncsHeld(1)
    assert.equal(s.getNow('/r/a')?.value.toString(), 'one', 'an update visible before its sync')
    holding = false
    held.shift()!()
    const kv = await updated
    assert.deepEqual(s.getNow('/r/a'), { key: '/r/a', value: Buffer.from('two'), createRevision: created.modRevision, modRevision: kv.modRevision })

    holding = true
    const deleted = s.delete('/r/a')
    await syncsHeld(1)
    assert.equal(s.getNow('/r/a')?.value.toString(), 'two', 'a delete visible before its sync')
    holding = false
    held.shift()!()
    await deleted
    assert.equal(s.getNow('/r/a'), null, 'a durable delete not shown')
    assert.equal(await s.get('/r/a'), null)

    await s.create('/r/a', Buffer.from('three'))
    assert.equal((await s.get('/r/a'))?.value.toString(), 'three', 'a create after a remembered absence not shown')
  })

  it('commits the writes arriving while a sync runs together and makes them durable with one more sync, in revision order', async function () {
    const s = store!
    holding = true
    const first = s.create('/g/first', Buffer.from('1'))
    await syncsHeld(1)
    // Arriving (in turns of their own) while the first sync is held.
    const order: number[] = []
    const later = Array.from({ length: 50 }, (_, i) =>
      s.create(`/g/k${i}`, Buffer.from(String(i))).then(kv => (order.push(i), kv)),
    )
    const refused = s.create('/g/first', Buffer.from('again')).then(
      () => 'created',
      (err: Error) => err.name,
    )
    for (let i = 0; i < 20; i++) await new Promise(resolve => setImmediate(resolve))
    assert.equal(calls, 1, 'a second sync started while the first ran')
    assert.deepEqual(order, [], 'a later batch was acknowledged before the earlier sync')
    holding = false
    held.shift()!()
    const firstKv = await first
    const results = await Promise.all(later)
    assert.equal(calls, 2, 'one sync for the first write, one for the 50 committed meanwhile')
    assert.deepEqual(order, [...order].sort((a, b) => a - b), 'acknowledged in commit order')
    results.forEach((kv, i) => assert.equal(kv.modRevision, firstKv.modRevision + 1 + i))
    assert.notEqual(await refused, 'created')
  })

  it('fails the writes of a failed sync and refuses later ones, naming the WAL', async function () {
    const s = store!
    await s.create('/f/before', Buffer.from('ok'))
    failWith = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
    await assert.rejects(s.create('/f/lost', Buffer.from('x')), (err: Error) => {
      assert.ok(err instanceof UnavailableError)
      assert.match(err.message, /syncing the write-ahead log .*store\.db-wal failed \(EIO: i\/o error, fdatasync\)/)
      return true
    })
    failWith = undefined
    await assert.rejects(s.create('/f/after', Buffer.from('y')), /write-ahead log/)
    await assert.rejects(s.healthCheck(1_000), /write-ahead log/)
    assert.equal((await s.get('/f/before'))?.value.toString(), 'ok', 'durable writes stay readable')
    assert.equal(await s.get('/f/lost'), null, 'a write whose sync failed is never shown')
  })
})
