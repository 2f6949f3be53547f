import assert from 'node:assert/strict'
import {
  AlreadyExistsError,
  CompactedError,
  ConflictError,
  InvalidError,
  NotFoundError,
  StoreError,
  UnavailableError,
} from '../../../src/server/store/errors.js'
import type { KeyValue, Store, Watch, WatchEvent } from '../../../src/server/store/types.js'

/** A store on fresh data, and a way to open it again on the same data after closing it. */
export interface StoreFixture {
  readonly store: Store
  /**
   * Opens a new store on the same data; the caller closed the previous one. Absent for a store
   * whose data does not outlive it (a scratch store).
   */
  reopen?(): Promise<Store>
  /** Closes whatever is still open and removes the data. */
  destroy(): Promise<void>
}

export type StoreFactory = () => Promise<StoreFixture>

const buf = (s: string): Buffer => Buffer.from(s, 'utf8')
const text = (b: Buffer | undefined): string | undefined => b?.toString('utf8')

/** Reads `count` events from a watch, failing after `timeoutMs`. */
export async function collect(watch: Watch, count: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = []
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`watch delivered ${events.length} of ${count} events within ${timeoutMs}ms`)),
      timeoutMs,
    )
  })
  try {
    while (events.length < count) {
      const next = await Promise.race([watch.next(), timeout])
      if (next.done) throw new Error(`watch ended after ${events.length} of ${count} events`)
      events.push(next.value)
    }
    return events
  } finally {
    clearTimeout(timer)
  }
}

/** Asserts that `promise` rejects with a StoreError of `type`, and returns it. */
export async function rejectsWith<T extends StoreError>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
  code: StoreError['code'],
): Promise<T> {
  try {
    await promise
  } catch (err) {
    assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`)
    assert.equal((err as StoreError).code, code)
    return err as T
  }
  assert.fail(`expected ${type.name}, but the call succeeded`)
}

/**
 * The behaviour every store implementation owes the API server. `factory` opens a store on
 * fresh data for every test; stores on a shared backend (etcd) use a fresh key prefix and
 * must not assume revisions start anywhere in particular.
 */
export function runStoreContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, function () {
    let fx: StoreFixture
    let store: Store

    beforeEach(async function () {
      fx = await factory()
      store = fx.store
    })

    afterEach(async function () {
      await fx.destroy()
    })

    it('creates and gets keys, with create and mod revision', async function () {
      const before = await store.currentRevision()
      const kv = await store.create('/pods/default/a', buf('one'))
      assert.equal(kv.key, '/pods/default/a')
      assert.ok(kv.modRevision > before, 'a write advances the revision')
      assert.equal(kv.createRevision, kv.modRevision)
      assert.equal(text(kv.value), 'one')
      const got = await store.get('/pods/default/a')
      assert.ok(got)
      assert.deepEqual(
        { ...got, value: text(got.value) },
        { key: '/pods/default/a', value: 'one', createRevision: kv.modRevision, modRevision: kv.modRevision },
      )
      assert.equal(await store.get('/pods/default/missing'), null)
      assert.equal(await store.currentRevision(), kv.modRevision)
    })

    it('stores values as opaque bytes', async function () {
      const bytes = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13])
      await store.create('/secrets/ns/bin', bytes)
      const got = await store.get('/secrets/ns/bin')
      assert.ok(got && got.value.equals(bytes))
      await store.create('/secrets/ns/empty', Buffer.alloc(0))
      assert.equal((await store.get('/secrets/ns/empty'))?.value.length, 0)
    })

    it('refuses to create an existing key with AlreadyExists naming the key', async function () {
      await store.create('/pods/default/a', buf('one'))
      const rev = await store.currentRevision()
      const err = await rejectsWith(store.create('/pods/default/a', buf('two')), AlreadyExistsError, 'AlreadyExists')
      assert.match(err.message, /\/pods\/default\/a/)
      assert.equal(err.retryable, false)
      assert.equal(text((await store.get('/pods/default/a'))?.value), 'one')
      assert.equal(await store.currentRevision(), rev, 'a failed write does not advance the revision')
    })

    it('updates by compare-and-swap on the mod revision', async function () {
      const created = await store.create('/pods/default/a', buf('v1'))
      const updated = await store.update('/pods/default/a', buf('v2'), created.modRevision)
      assert.ok(updated.modRevision > created.modRevision)
      assert.equal(updated.createRevision, created.createRevision)
      assert.equal(text(updated.value), 'v2')

      const rev = await store.currentRevision()
      const err = await rejectsWith(store.update('/pods/default/a', buf('stale'), created.modRevision), ConflictError, 'Conflict')
      assert.match(err.message, /\/pods\/default\/a/)
      assert.match(err.message, new RegExp(`${created.modRevision}`))
      assert.equal(err.expected, created.modRevision)
      assert.equal(err.current.modRevision, updated.modRevision)
      assert.equal(text(err.current.value), 'v2')
      assert.equal(await store.currentRevision(), rev)

      await rejectsWith(store.update('/pods/default/nope', buf('x'), updated.modRevision), NotFoundError, 'NotFound')
      const got = await store.get('/pods/default/a')
      assert.equal(got?.modRevision, updated.modRevision)
      assert.equal(text(got?.value), 'v2')
    })

    it('deletes, conditionally or not, and recreates with a new create revision', async function () {
      const a = await store.create('/pods/default/a', buf('a'))
      const b = await store.create('/pods/default/b', buf('b'))

      const del = await store.delete('/pods/default/a')
      assert.ok(del.revision > b.modRevision)
      assert.equal(del.prev.modRevision, a.modRevision)
      assert.equal(text(del.prev.value), 'a')
      assert.equal(await store.get('/pods/default/a'), null)
      await rejectsWith(store.delete('/pods/default/a'), NotFoundError, 'NotFound')

      const err = await rejectsWith(store.delete('/pods/default/b', { expectedModRevision: a.modRevision }), ConflictError, 'Conflict')
      assert.equal(err.current.modRevision, b.modRevision)
      assert.ok(await store.get('/pods/default/b'), 'a failed conditional delete keeps the key')
      const delB = await store.delete('/pods/default/b', { expectedModRevision: b.modRevision })
      assert.equal(delB.prev.modRevision, b.modRevision)
      assert.equal(await store.get('/pods/default/b'), null)

      const again = await store.create('/pods/default/a', buf('a2'))
      assert.ok(again.createRevision > del.revision)
      await rejectsWith(store.update('/pods/default/a', buf('x'), a.modRevision), ConflictError, 'Conflict')
    })

    it('keeps one global, strictly increasing revision', async function () {
      let last = await store.currentRevision()
      const seen: number[] = []
      for (let i = 0; i < 20; i++) {
        const kv = await store.create(`/cm/ns/k${i}`, buf(String(i)))
        seen.push(kv.modRevision)
        if (i % 3 === 0) seen.push((await store.update(`/cm/ns/k${i}`, buf('u'), kv.modRevision)).modRevision)
        if (i % 5 === 0) seen.push((await store.delete(`/cm/ns/k${i}`)).revision)
      }
      for (const rev of seen) {
        assert.equal(rev, last + 1, 'each write takes the next revision')
        last = rev
      }
      assert.equal(await store.currentRevision(), last)
      // Concurrent writers still get distinct, gap-free revisions.
      const revs = await Promise.all(Array.from({ length: 30 }, (_, i) => store.create(`/cm/par/k${i}`, buf('p'))))
      const sorted = revs.map(r => r.modRevision).sort((x, y) => x - y)
      assert.deepEqual(sorted, Array.from({ length: 30 }, (_, i) => last + 1 + i))
    })

    it('rejects invalid input with Invalid', async function () {
      await rejectsWith(store.create('', buf('x')), InvalidError, 'Invalid')
      await rejectsWith(store.create('no-slash', buf('x')), InvalidError, 'Invalid')
      await rejectsWith(store.list('pods'), InvalidError, 'Invalid')
      await rejectsWith(store.create('/k', 'text' as unknown as Buffer), InvalidError, 'Invalid')
      await rejectsWith(store.update('/k', buf('x'), 0), InvalidError, 'Invalid')
      await rejectsWith(store.list('/', { continue: 'not-a-token' }), InvalidError, 'Invalid')
      await rejectsWith(store.list('/', { limit: -1 }), InvalidError, 'Invalid')
    })

    it('lists a prefix in key order, only that prefix', async function () {
      await store.create('/pods/b/2', buf('b2'))
      await store.create('/pods/a/1', buf('a1'))
      await store.create('/pods/a/2', buf('a2'))
      await store.create('/pods/ab/1', buf('ab1'))
      await store.create('/podsx/1', buf('x'))
      await store.create('/services/a/1', buf('s'))
      const all = await store.list('/pods/')
      assert.deepEqual(all.items.map(i => i.key), ['/pods/a/1', '/pods/a/2', '/pods/ab/1', '/pods/b/2'])
      assert.equal(all.continue, undefined)
      assert.equal(all.revision, await store.currentRevision())
      assert.deepEqual((await store.list('/pods/a/')).items.map(i => text(i.value)), ['a1', 'a2'])
      assert.equal((await store.list('/nothing/')).items.length, 0)
      assert.equal((await store.list('')).items.length, 6)
    })

    it('pages at the first page revision while writers keep writing', async function () {
      const created: KeyValue[] = []
      for (let i = 0; i < 25; i++) created.push(await store.create(`/pods/ns/p${String(i).padStart(2, '0')}`, buf(`v${i}`)))
      const first = await store.list('/pods/', { limit: 10 })
      assert.equal(first.items.length, 10)
      assert.ok(first.continue)
      assert.equal(first.remaining, 15)
      const fixed = first.revision

      // Between pages: new keys, an update, a delete, all inside the listed range.
      await store.create('/pods/ns/p19a', buf('new'))
      await store.update('/pods/ns/p15', buf('changed'), created[15]!.modRevision)
      await store.delete('/pods/ns/p20')
      await store.create('/pods/ns/p99', buf('late'))

      const second = await store.list('/pods/', { limit: 10, continue: first.continue })
      assert.equal(second.revision, fixed)
      assert.equal(second.remaining, 5)
      const third = await store.list('/pods/', { limit: 10, continue: second.continue })
      assert.equal(third.revision, fixed)
      assert.equal(third.continue, undefined)
      const keys = [...first.items, ...second.items, ...third.items].map(i => i.key)
      assert.deepEqual(keys, created.map(c => c.key), 'pages show exactly the keys at the fixed revision')
      assert.equal(text(second.items.find(i => i.key === '/pods/ns/p15')?.value), 'v15')

      const now = await store.list('/pods/')
      assert.equal(now.items.length, 26)
      assert.ok(now.revision > fixed)

      // startKey + revision pages the same way without a token.
      const manual = await store.list('/pods/', { startKey: '/pods/ns/p20', revision: fixed, limit: 2 })
      assert.deepEqual(manual.items.map(i => i.key), ['/pods/ns/p20', '/pods/ns/p21'])
      await rejectsWith(store.list('/pods/', { revision: now.revision + 1000 }), InvalidError, 'Invalid')
      await rejectsWith(store.list('/services/', { continue: first.continue }), InvalidError, 'Invalid')
    })

    it('counts what remains exactly when a token is used twice and when two ranges continue from one key', async function () {
      for (let i = 0; i < 9; i++) await store.create(`/pods/a/p${i}`, buf('a'))
      for (let i = 0; i < 4; i++) await store.create(`/pods/b/p${i}`, buf('b'))
      const wide = await store.list('/pods/', { limit: 3 })
      assert.equal(wide.remaining, 10)
      const again = [await store.list('/pods/', { limit: 3, continue: wide.continue }), await store.list('/pods/', { limit: 3, continue: wide.continue })]
      assert.deepEqual(again.map(p => p.remaining), [7, 7])
      const narrow = await store.list('/pods/a/', { limit: 3 })
      assert.equal(narrow.remaining, 6)
      const narrowNext = await store.list('/pods/a/', { limit: 3, continue: narrow.continue })
      assert.equal(narrowNext.remaining, 3)
      // The wide list continues from the same key as the narrow one: its count is its own range's.
      const wideFromSameKey = await store.list('/pods/', { startKey: '/pods/a/p3', revision: wide.revision, limit: 3 })
      assert.equal(wideFromSameKey.remaining, 7)
      const wideNext = await store.list('/pods/', { limit: 3, continue: again[0]!.continue })
      assert.equal(wideNext.remaining, 4)
      const last = await store.list('/pods/', { limit: 3, continue: wideNext.continue })
      assert.equal(last.remaining, 1)
    })

    it('reads lists at an older revision', async function () {
      const a = await store.create('/cm/x/a', buf('a1'))
      await store.create('/cm/x/b', buf('b1'))
      const mid = await store.currentRevision()
      await store.update('/cm/x/a', buf('a2'), a.modRevision)
      await store.delete('/cm/x/b')
      await store.create('/cm/x/c', buf('c1'))
      const old = await store.list('/cm/x/', { revision: mid })
      assert.equal(old.revision, mid)
      assert.deepEqual(old.items.map(i => [i.key, text(i.value)]), [['/cm/x/a', 'a1'], ['/cm/x/b', 'b1']])
      const now = await store.list('/cm/x/')
      assert.deepEqual(now.items.map(i => [i.key, text(i.value)]), [['/cm/x/a', 'a2'], ['/cm/x/c', 'c1']])
    })

    it('counts keys under a prefix', async function () {
      assert.equal(await store.count('/pods/'), 0)
      for (let i = 0; i < 12; i++) await store.create(`/pods/ns/p${i}`, buf('x'))
      await store.create('/podsx/1', buf('x'))
      await store.delete('/pods/ns/p3')
      assert.equal(await store.count('/pods/'), 11)
      assert.equal(await store.count('/pods/ns/p1'), 3)
      assert.equal(await store.count(''), 12)
    })

    it('delivers watch events in revision order with prevValue under concurrent load', async function () {
      this.timeout(60_000)
      const start = (await store.currentRevision()) + 1
      const watch = await store.watch('/load/', { fromRevision: start })
      const other = await store.watch('/unrelated/')
      const writers = 5
      const perWriter = 100
      const acked = new Map<number, { key: string; type: string; value?: string }>()
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          let done = 0
          let n = 0
          while (done < perWriter) {
            const key = `/load/w${w}/k${n % 7}`
            const cur = await store.get(key)
            if (!cur) {
              const kv = await store.create(key, buf(`w${w}-${done}`))
              acked.set(kv.modRevision, { key, type: 'create', value: `w${w}-${done}` })
            } else if (done % 4 === 3) {
              const d = await store.delete(key, { expectedModRevision: cur.modRevision })
              acked.set(d.revision, { key, type: 'delete' })
            } else {
              const kv = await store.update(key, buf(`w${w}-${done}`), cur.modRevision)
              acked.set(kv.modRevision, { key, type: 'update', value: `w${w}-${done}` })
            }
            done++
            n++
          }
        }),
      )
      assert.equal(acked.size, writers * perWriter)
      const events = await collect(watch, writers * perWriter, 30_000)
      watch.cancel()
      const state = new Map<string, string>()
      let last = start - 1
      for (const ev of events) {
        assert.ok(ev.revision > last, `revision ${ev.revision} after ${last}`)
        last = ev.revision
        const ack = acked.get(ev.revision)
        assert.ok(ack, `event at revision ${ev.revision} matches an acknowledged write`)
        assert.equal(ev.key, ack.key)
        assert.equal(ev.type, ack.type)
        assert.equal(text(ev.value), ack.value)
        assert.equal(text(ev.prevValue), state.get(ev.key), `prevValue of ${ev.key} at ${ev.revision}`)
        if (ev.type === 'delete') state.delete(ev.key)
        else state.set(ev.key, ack.value!)
      }
      const quiet = await Promise.race([other.next(), new Promise(r => setTimeout(() => r('quiet'), 200))])
      assert.equal(quiet, 'quiet', 'a watch sees only its prefix')
      other.cancel()
    })

    it('watches from a past revision, then continues live', async function () {
      const a = await store.create('/w/a', buf('a1'))
      const b = await store.create('/w/b', buf('b1'))
      const u = await store.update('/w/a', buf('a2'), a.modRevision)
      const d = await store.delete('/w/b')
      await store.create('/other/x', buf('x'))

      const watch = await store.watch('/w/', { fromRevision: b.modRevision })
      assert.equal(watch.startRevision, b.modRevision)
      const history = await collect(watch, 3)
      assert.deepEqual(
        history.map(e => [e.type, e.key, e.revision, text(e.value), text(e.prevValue)]),
        [
          ['create', '/w/b', b.modRevision, 'b1', undefined],
          ['update', '/w/a', u.modRevision, 'a2', 'a1'],
          ['delete', '/w/b', d.revision, undefined, 'b1'],
        ],
      )
      assert.equal(history[1]!.prevModRevision, a.modRevision)
      assert.equal(history[2]!.prevModRevision, b.modRevision)
      const c = await store.create('/w/c', buf('c1'))
      const [live] = await collect(watch, 1)
      assert.equal(live!.revision, c.modRevision)
      assert.equal(live!.type, 'create')
      watch.cancel()
      const after = await watch.next()
      assert.equal(after.done, true, 'a cancelled watch ends')

      const exact = await store.watch('/w/a', { exact: true, fromRevision: a.modRevision })
      const onlyA = await collect(exact, 2)
      assert.deepEqual(onlyA.map(e => e.revision), [a.modRevision, u.modRevision])
      exact.cancel()
    })

    it('starts a watch at a future revision once the store gets there', async function () {
      const from = (await store.currentRevision()) + 3
      const watch = await store.watch('/future/', { fromRevision: from })
      const written: number[] = []
      for (let i = 0; i < 5; i++) written.push((await store.create(`/future/k${i}`, buf('x'))).modRevision)
      const events = await collect(watch, 3)
      assert.deepEqual(events.map(e => e.revision), written.slice(2))
      watch.cancel()
    })

    it('starts a watch without fromRevision at the next write', async function () {
      await store.create('/n/before', buf('b'))
      const watch = await store.watch('/n/')
      const kv = await store.create('/n/after', buf('a'))
      const [ev] = await collect(watch, 1)
      assert.equal(ev!.key, '/n/after')
      assert.equal(ev!.revision, kv.modRevision)
      assert.ok(watch.startRevision <= kv.modRevision)
      watch.cancel()
    })

    it('reports a watch\'s progress on request: the current revision, after every event up to it', async function () {
      const watch = await store.watch('/progress/')
      assert.ok(watch.requestProgress, 'the store reports progress')
      const mine = await store.create('/progress/a', buf('a'))
      // The newest write is outside the watched prefix: only progress tells the watcher.
      const other = await store.create('/elsewhere/b', buf('b'))
      const events: WatchEvent[] = []
      const reading = (async () => {
        for await (const ev of watch) {
          events.push(ev)
          if (ev.type === 'progress') return
        }
      })()
      // A watch still catching up may not answer: ask until it does, as a consumer would.
      for (let i = 0; i < 50 && !events.some(e => e.type === 'progress'); i++) {
        watch.requestProgress()
        await new Promise(r => setTimeout(r, 100))
      }
      watch.cancel()
      await reading
      const at = events.findIndex(e => e.type === 'progress')
      assert.ok(at >= 0, `no progress event: ${JSON.stringify(events.map(e => e.type))}`)
      assert.deepEqual(events.slice(0, at).map(e => [e.type, e.key]), [['create', '/progress/a']], 'the prefix\'s event comes first')
      assert.ok(events[at]!.revision >= other.modRevision, `progress ${events[at]!.revision} reaches the newest write ${other.modRevision}`)
      assert.ok(mine.modRevision < other.modRevision)
      watch.cancel()
    })

    it('compacts history: older reads and watches fail with Compacted, newer stay exact', async function () {
      const a = await store.create('/c/a', buf('a1'))
      const b = await store.create('/c/b', buf('b1'))
      const a2 = await store.update('/c/a', buf('a2'), a.modRevision)
      await store.delete('/c/b')
      const mark = await store.currentRevision()
      const a3 = await store.update('/c/a', buf('a3'), a2.modRevision)
      await store.create('/c/d', buf('d1'))

      await store.compact(mark)
      await store.compact(mark - 1) // at or below the compacted revision: nothing to do

      const err = await rejectsWith(store.list('/c/', { revision: b.modRevision }), CompactedError, 'Compacted')
      assert.match(err.message, /compacted/)
      assert.match(err.message, new RegExp(`${b.modRevision}`))
      await rejectsWith(store.watch('/c/', { fromRevision: a.modRevision }), CompactedError, 'Compacted')

      const atMark = await store.list('/c/', { revision: mark })
      assert.deepEqual(atMark.items.map(i => [i.key, text(i.value)]), [['/c/a', 'a2']])
      const now = await store.list('/c/')
      assert.deepEqual(now.items.map(i => [i.key, text(i.value)]), [['/c/a', 'a3'], ['/c/d', 'd1']])

      const watch = await store.watch('/c/', { fromRevision: mark + 1 })
      const events = await collect(watch, 2)
      assert.deepEqual(events.map(e => [e.type, e.key, text(e.prevValue)]), [['update', '/c/a', 'a2'], ['create', '/c/d', undefined]])
      assert.equal(events[0]!.revision, a3.modRevision)
      watch.cancel()

      // A paged list whose revision is compacted between pages fails the same way.
      for (let i = 0; i < 6; i++) await store.create(`/c/page/${i}`, buf('p'))
      const first = await store.list('/c/page/', { limit: 2 })
      await store.create('/c/page/late', buf('p'))
      await store.compact(await store.currentRevision())
      await rejectsWith(store.list('/c/page/', { limit: 2, continue: first.continue }), CompactedError, 'Compacted')
    })

    it('lets exactly one of two racing compare-and-swap writers win', async function () {
      this.timeout(30_000)
      let kv = await store.create('/race/key', buf('0'))
      for (let round = 0; round < 25; round++) {
        const expected = kv.modRevision
        const results = await Promise.allSettled([
          store.update('/race/key', buf(`a${round}`), expected),
          store.update('/race/key', buf(`b${round}`), expected),
        ])
        const won = results.filter(r => r.status === 'fulfilled')
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
        assert.equal(won.length, 1, `round ${round}: exactly one winner`)
        assert.equal(lost.length, 1)
        assert.ok(lost[0]!.reason instanceof ConflictError, `loser gets Conflict, got ${String(lost[0]!.reason)}`)
        kv = (won[0] as PromiseFulfilledResult<KeyValue>).value
        assert.equal((lost[0]!.reason as ConflictError).current.modRevision, kv.modRevision)
        assert.equal((await store.get('/race/key'))?.modRevision, kv.modRevision)
      }
      // Racing creates: one AlreadyExists.
      const creates = await Promise.allSettled([store.create('/race/new', buf('a')), store.create('/race/new', buf('b'))])
      assert.equal(creates.filter(r => r.status === 'fulfilled').length, 1)
      const failed = creates.find((r): r is PromiseRejectedResult => r.status === 'rejected')
      assert.ok(failed?.reason instanceof AlreadyExistsError)
    })

    it('keeps data and revisions across close and reopen', async function () {
      if (!fx.reopen) this.skip()
      const a = await store.create('/r/a', buf('a1'))
      const b = await store.create('/r/b', buf('b1'))
      const a2 = await store.update('/r/a', buf('a2'), a.modRevision)
      const d = await store.delete('/r/b')
      const rev = await store.currentRevision()
      await store.close()
      await rejectsWith(store.get('/r/a'), UnavailableError, 'Unavailable')

      store = await fx.reopen!()
      assert.equal(await store.currentRevision(), rev)
      const got = await store.get('/r/a')
      assert.deepEqual([got?.createRevision, got?.modRevision, text(got?.value)], [a.modRevision, a2.modRevision, 'a2'])
      assert.equal(await store.get('/r/b'), null)
      assert.deepEqual((await store.list('/r/', { revision: b.modRevision })).items.map(i => i.key), ['/r/a', '/r/b'])
      const next = await store.create('/r/c', buf('c'))
      assert.equal(next.modRevision, rev + 1, 'revisions continue where they stopped')
      const watch = await store.watch('/r/', { fromRevision: a2.modRevision })
      const events = await collect(watch, 3)
      assert.deepEqual(events.map(e => e.revision), [a2.modRevision, d.revision, next.modRevision])
      watch.cancel()
    })

    it('deletes keys written with a TTL once it runs out, with a delete event; a rewrite without one keeps the key', async function () {
      this.timeout(20_000)
      const watch = await store.watch('/ttl/')
      const started = Date.now()
      const gone = await store.create('/ttl/gone', buf('g'), { ttlSeconds: 1 })
      const kept = await store.create('/ttl/kept', buf('k'), { ttlSeconds: 1 })
      await store.create('/ttl/plain', buf('p'))
      const rewritten = await store.update('/ttl/kept', buf('k2'), kept.modRevision)
      const events = await collect(watch, 5, 15_000)
      watch.cancel()
      assert.deepEqual(
        events.map(e => [e.type, e.key]),
        [['create', '/ttl/gone'], ['create', '/ttl/kept'], ['create', '/ttl/plain'], ['update', '/ttl/kept'], ['delete', '/ttl/gone']],
      )
      const expired = events[4]!
      assert.equal(text(expired.prevValue), 'g')
      assert.equal(expired.prevModRevision, gone.modRevision)
      assert.ok(Date.now() - started >= 900, 'not before the TTL')
      assert.equal(await store.get('/ttl/gone'), null)
      // Past the longest TTL granted (etcd rounds a 1 s lease up to its minimum): still there.
      await new Promise(r => setTimeout(r, 3_000))
      assert.equal(text((await store.get('/ttl/kept'))?.value), 'k2')
      assert.equal((await store.get('/ttl/kept'))?.modRevision, rewritten.modRevision)
      assert.equal(text((await store.get('/ttl/plain'))?.value), 'p')
    })

    it('answers health checks and refuses work once closed', async function () {
      await store.healthCheck(2_000)
      const checks = store.healthChecks()
      assert.equal(checks[0]?.name, 'store')
      await checks[0]!.check(2_000)
      const watch = await store.watch('/h/')
      await store.close()
      await store.close()
      assert.equal((await watch.next()).done, true, 'closing ends watches')
      const err = await rejectsWith(store.create('/h/x', buf('x')), UnavailableError, 'Unavailable')
      assert.equal(err.retryable, true)
      await rejectsWith(store.healthCheck(500), UnavailableError, 'Unavailable')
    })
  })
}
