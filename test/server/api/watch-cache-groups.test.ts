import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiWatchEvent, ApiWatchGroup, ApiWatchSink, GenericStore } from '../../../src/server/api/registry/generic-store.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { WatchCachedStore } from '../../../src/server/api/registry/watch-cache.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { WatchEvent } from '../../../src/server/store/types.js'
import type { WatchGroup, WatchSink } from '../../../src/server/store/watch-stream.js'

/** A listening watch's sink that records what reached it on its own, and its end. */
class Member implements WatchSink {
  own: string[] = []
  viaGroup: string[] = []
  ended: string | undefined
  constructor(readonly name: string) {}
  event(ev: WatchEvent): void {
    this.own.push(`${ev.key}@${ev.revision}`)
  }
  end(error: Error | undefined): void {
    this.ended = error ? error.message : 'ended'
  }
}

/** A group that records each call (the event and its members) and hands the event to each member. */
class RecordingGroup implements WatchGroup<Member> {
  calls: { key: string; members: string[] }[] = []
  throwOn: string | undefined
  event(ev: WatchEvent, members: readonly Member[]): void {
    this.calls.push({ key: ev.key, members: members.map((m) => m.name) })
    if (this.throwOn !== undefined && ev.key.endsWith(this.throwOn)) throw new Error('cannot encode')
    for (const m of members) m.viaGroup.push(`${ev.key}@${ev.revision}`)
  }
}

const value = (name: string) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))

/** Resolves after the store watch has had time to hand over what was written (the cache applies events as they come). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100))

describe('api: the watch cache hands a change to a group of watchers once', function () {
  this.timeout(20_000)
  let dir: string
  let store: SqliteStore
  let cache: WatchCachedStore

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'watch-groups-'))
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    cache = new WatchCachedStore(store, ['/configmaps/'])
  })
  afterEach(async () => {
    await cache.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('one call per change and prefix with every member, in order; a watcher without a group gets its own events; earlier events go to the sink', async () => {
    // The cache is filled first, so the change before the watchers is in its window.
    cache.startAll()
    await settle()
    const start = (await store.create('/configmaps/default/before', value('before'))).modRevision
    await settle()
    const group = new RecordingGroup()
    const a = new Member('a')
    const b = new Member('b')
    const ns = new Member('ns')
    const alone = new Member('alone')
    const wa = await cache.watch('/configmaps/', { fromRevision: start })
    const wb = await cache.watch('/configmaps/', { fromRevision: start + 1 })
    const wns = await cache.watch('/configmaps/other/', { fromRevision: start + 1 })
    const walone = await cache.watch('/configmaps/', { fromRevision: start + 1 })
    wa.listen!(a, group)
    wb.listen!(b, group)
    wns.listen!(ns, group)
    walone.listen!(alone)
    const r1 = (await store.create('/configmaps/default/x', value('x'))).modRevision
    const r2 = (await store.create('/configmaps/other/y', value('y'))).modRevision
    const r3 = (await store.create('/configmaps/default/z', value('z'))).modRevision
    await settle()
    // The event before the watchers listened was buffered for a, and reached its sink, once.
    assert.deepEqual(a.own, [`/configmaps/default/before@${start}`])
    assert.deepEqual(a.viaGroup, [`/configmaps/default/x@${r1}`, `/configmaps/other/y@${r2}`, `/configmaps/default/z@${r3}`])
    assert.deepEqual(b.viaGroup, a.viaGroup)
    assert.deepEqual(b.own, [])
    assert.deepEqual(ns.viaGroup, [`/configmaps/other/y@${r2}`])
    assert.deepEqual(alone.own, a.viaGroup)
    assert.deepEqual(alone.viaGroup, [])
    // One call per change for the prefix's group, one for the namespace's.
    assert.deepEqual(group.calls, [
      { key: '/configmaps/default/x', members: ['a', 'b'] },
      { key: '/configmaps/other/y', members: ['a', 'b'] },
      { key: '/configmaps/other/y', members: ['ns'] },
      { key: '/configmaps/default/z', members: ['a', 'b'] },
    ])
  })

  it('a member that starts at a later revision gets nothing older; a cancelled member leaves its group', async () => {
    const now = (await store.create('/configmaps/default/first', value('first'))).modRevision
    const group = new RecordingGroup()
    const early = new Member('early')
    const late = new Member('late')
    const we = await cache.watch('/configmaps/', { fromRevision: now + 1 })
    const wl = await cache.watch('/configmaps/', { fromRevision: now + 2 })
    we.listen!(early, group)
    wl.listen!(late, group)
    const r1 = (await store.create('/configmaps/default/one', value('one'))).modRevision
    const r2 = (await store.create('/configmaps/default/two', value('two'))).modRevision
    await settle()
    assert.deepEqual(early.viaGroup, [`/configmaps/default/one@${r1}`, `/configmaps/default/two@${r2}`])
    assert.deepEqual(late.viaGroup, [`/configmaps/default/two@${r2}`])
    assert.deepEqual(group.calls.map((c) => c.members), [['early'], ['early', 'late']])
    we.cancel()
    await store.create('/configmaps/default/three', value('three'))
    await settle()
    assert.deepEqual(group.calls.at(-1)!.members, ['late'])
    assert.equal(early.viaGroup.length, 2, 'nothing after cancel')
    assert.equal(early.ended, undefined, 'no end after cancel')
    wl.cancel()
    await store.create('/configmaps/default/four', value('four'))
    await settle()
    assert.equal(group.calls.length, 3, 'an empty group gets nothing')
  })

  it('a group that throws ends its own members only; closing the cache ends the others', async () => {
    const from = (await store.currentRevision()) + 1
    const failing = new RecordingGroup()
    failing.throwOn = 'bad'
    const fine = new RecordingGroup()
    const f = new Member('f')
    const g = new Member('g')
    const alone = new Member('alone')
    ;(await cache.watch('/configmaps/', { fromRevision: from })).listen!(f, failing)
    ;(await cache.watch('/configmaps/', { fromRevision: from })).listen!(g, fine)
    ;(await cache.watch('/configmaps/', { fromRevision: from })).listen!(alone)
    await store.create('/configmaps/default/bad', value('bad'))
    await store.create('/configmaps/default/good', value('good'))
    await settle()
    assert.match(f.ended ?? '', /failed to send an event: cannot encode/)
    assert.equal(failing.calls.length, 1, 'an ended member is out of its group')
    assert.equal(g.viaGroup.length, 2)
    assert.equal(alone.own.length, 2)
    assert.equal(g.ended, undefined)
    await cache.close()
    assert.equal(g.ended, 'ended')
    assert.equal(alone.ended, 'ended')
  })
})

describe('api: the generic store translates a change once for a group of read-only watches without selectors', function () {
  this.timeout(20_000)
  let dir: string
  let store: SqliteStore
  let registry: Registry
  let configmaps: GenericStore

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-groups-api-'))
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    await store.create('/namespaces/default', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })))
    registry = new Registry(store, KINDS, () => {}, { watchCache: true })
    configmaps = registry.lookup('', 'v1', 'configmaps')!
  })
  afterEach(async () => {
    await registry.watchCache?.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('the group gets each change once, translated, with its members; a watch with a selector keeps its own sink', async () => {
    interface Seen extends ApiWatchSink {
      name: string
      own: string[]
    }
    const sink = (name: string): Seen => ({
      name,
      own: [],
      event(ev: ApiWatchEvent) {
        this.own.push(`${ev.type} ${(ev.object as { metadata: { name: string } }).metadata.name}`)
      },
      end() {},
    })
    const calls: { what: string; members: string[] }[] = []
    const group: ApiWatchGroup<Seen> = {
      event(ev, members) {
        calls.push({ what: `${ev.type} ${(ev.object as { metadata: { name: string } }).metadata.name}`, members: members.map((m) => m.name) })
      },
    }
    const { resourceVersion } = await configmaps.list({ resourceVersion: '0' })
    const plain = [sink('p1'), sink('p2')]
    for (const s of plain) (await configmaps.watch({ resourceVersion, readOnly: true })).direct!.listen(s, group)
    const selective = sink('selective')
    ;(await configmaps.watch({ resourceVersion, readOnly: true, labels: [{ key: 'app', operator: 'exists', values: [] }] })).direct!.listen(selective, group)
    await configmaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', namespace: 'default' } })
    await configmaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labelled', namespace: 'default', labels: { app: 'x' } } })
    await settle()
    assert.deepEqual(calls, [
      { what: 'ADDED plain', members: ['p1', 'p2'] },
      { what: 'ADDED labelled', members: ['p1', 'p2'] },
    ])
    assert.deepEqual(plain.map((s) => s.own), [[], []])
    assert.deepEqual(selective.own, ['ADDED labelled'])
  })
})
