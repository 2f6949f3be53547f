import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ApiWatch, ApiWatchEvent, GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { RegistryOptions } from '../../../src/server/api/registry/options.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { Store } from '../../../src/server/store/types.js'

/** The store under the registry, counting the lists and watches it is asked for, by prefix. */
function counting(store: Store, progress = true) {
  const calls: { op: 'list' | 'watch' | 'get'; prefix: string; limit?: number }[] = []
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown
      if (prop === 'list' || prop === 'watch' || prop === 'get') {
        return async (prefix: string, ...rest: unknown[]) => {
          calls.push({ op: prop, prefix, limit: (rest[0] as { limit?: number } | undefined)?.limit })
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, [prefix, ...rest])
          // A store that cannot report a watch's progress (requestProgress is optional).
          if (prop === 'watch' && !progress) (result as { requestProgress?: unknown }).requestProgress = undefined
          return result
        }
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
  const count = (op: 'list' | 'watch' | 'get', prefix: string) => calls.filter((c) => c.op === op && c.prefix.startsWith(prefix)).length
  /** Lists of more than one key (reads of the collection, not of the current revision). */
  const collectionReads = (prefix: string) => calls.filter((c) => c.op === 'list' && c.prefix.startsWith(prefix) && c.limit !== 1).length
  return { proxy, count, collectionReads }
}

async function nextEvents(watch: ApiWatch, n: number, timeoutMs = 5_000): Promise<ApiWatchEvent[]> {
  const it = watch[Symbol.asyncIterator]()
  const out: ApiWatchEvent[] = []
  const deadline = Date.now() + timeoutMs
  while (out.length < n) {
    const r = await Promise.race([it.next(), new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), Math.max(1, deadline - Date.now())))])
    if (r === 'timeout') throw new Error(`got ${out.length} of ${n} events`)
    if (r.done) throw new Error(`watch ended after ${out.length} of ${n} events`)
    out.push(r.value)
  }
  return out
}

const cm = (name: string, namespace = 'default') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: name } })
const names = (events: ApiWatchEvent[]) => events.map((e) => [e.type, (e.object as { metadata: { name: string } }).metadata.name])

describe('api: the watch cache', function () {
  this.timeout(20_000)
  let dir: string
  let store: SqliteStore
  let count: ReturnType<typeof counting>['count']
  let collectionReads: ReturnType<typeof counting>['collectionReads']
  let configmaps: GenericStore
  let registry: Registry

  const open = async (options: RegistryOptions, progress = true) => {
    dir = mkdtempSync(join(tmpdir(), 'watch-cache-'))
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    for (const ns of ['default', 'other']) {
      await store.create(`/namespaces/${ns}`, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })))
    }
    const c = counting(store, progress)
    count = c.count
    collectionReads = c.collectionReads
    registry = new Registry(c.proxy, KINDS, () => {}, options)
    configmaps = registry.lookup('', 'v1', 'configmaps')!
    // As the server does before it says ready.
    await registry.watchCache?.whenFilled(10_000)
  }
  afterEach(async () => {
    await registry.watchCache?.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('serves any number of watches from one store watch per resource', async () => {
    await open({ watchCache: true })
    const { resourceVersion } = await configmaps.list({ resourceVersion: '0' })
    const storeWatches = count('watch', '/configmaps/')
    assert.equal(storeWatches, 1)
    const watches = await Promise.all(Array.from({ length: 20 }, (_, i) => configmaps.watch({ resourceVersion, ...(i % 2 ? { namespace: 'default' } : {}) })))
    const other = await configmaps.watch({ resourceVersion, namespace: 'other' })
    assert.equal(count('watch', '/configmaps/'), storeWatches, 'no further store watch')
    await configmaps.create(cm('a'))
    await configmaps.create(cm('b', 'other'))
    for (const [i, w] of watches.entries()) {
      assert.deepEqual(names(await nextEvents(w, i % 2 ? 1 : 2)), i % 2 ? [['ADDED', 'a']] : [['ADDED', 'a'], ['ADDED', 'b']])
      w.cancel()
    }
    assert.deepEqual(names(await nextEvents(other, 1)), [['ADDED', 'b']])
    other.cancel()
    // The last watcher of a namespace gone, a new one of it still gets its events (and only them).
    const now = (await configmaps.list({ resourceVersion: '0' })).resourceVersion
    const again = await configmaps.watch({ resourceVersion: now, namespace: 'other' })
    await configmaps.create(cm('c'))
    await configmaps.create(cm('d', 'other'))
    assert.deepEqual(names(await nextEvents(again, 1)), [['ADDED', 'd']])
    again.cancel()
  })

  it('serves resourceVersion=0 lists from memory and consistent lists from the store', async () => {
    await open({ watchCache: true })
    await configmaps.create(cm('a'))
    await configmaps.list({ resourceVersion: '0' })
    const lists = count('list', '/configmaps/')
    const b = await configmaps.create(cm('b'))
    let cached = await configmaps.list({ resourceVersion: '0' })
    for (let i = 0; i < 50 && cached.items.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20))
      cached = await configmaps.list({ resourceVersion: '0' })
    }
    assert.deepEqual(cached.items.map((o) => o.metadata.name), ['a', 'b'])
    assert.equal(cached.resourceVersion, b.metadata.resourceVersion)
    const notOlder = await configmaps.list({ resourceVersion: b.metadata.resourceVersion! })
    assert.deepEqual(notOlder.items.map((o) => o.metadata.name), ['a', 'b'])
    assert.equal(count('list', '/configmaps/'), lists, 'the store was not asked')
    await configmaps.list({})
    assert.equal(count('list', '/configmaps/'), lists + 1, 'a consistent list reads the store')
  })

  /** A whole list without resourceVersion, as the list handler reads it: names and its resourceVersion. */
  const consistentList = async (options: { namespace?: string } = {}) => {
    const stream = await configmaps.streamList(options)
    const items: string[] = []
    for await (const page of stream.pages) items.push(...page.map((o) => o.metadata.name!))
    return { items, resourceVersion: stream.resourceVersion }
  }

  it('serves consistent whole lists from memory once fresh, the latest write included, at the store\'s current revision', async () => {
    await open({ watchCache: true })
    await configmaps.create(cm('a'))
    await consistentList()
    const reads = collectionReads('/configmaps/')
    const b = await configmaps.create(cm('b', 'other'))
    // Read right after the write: the cache must wait until its watch delivered it.
    let listed = await consistentList()
    assert.deepEqual(listed.items, ['a', 'b'])
    assert.equal(listed.resourceVersion, b.metadata.resourceVersion)
    // The newest write is another resource's: only the store watch's progress proves freshness.
    const secrets = registry.lookup('', 'v1', 'secrets')!
    const s = await secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } })
    listed = await consistentList({ namespace: 'default' })
    assert.deepEqual(listed.items, ['a'])
    assert.equal(listed.resourceVersion, s.metadata.resourceVersion, 'the store\'s current revision')
    assert.equal(collectionReads('/configmaps/'), reads, 'the store was asked only for its current revision')
    // More than a store page (100 keys), still one answer from memory.
    await Promise.all(Array.from({ length: 120 }, (_, i) => configmaps.create(cm(`m${String(i).padStart(3, '0')}`))))
    listed = await consistentList()
    assert.equal(listed.items.length, 122)
    assert.equal(collectionReads('/configmaps/'), reads)
  })

  it('reads consistent lists from the store when the cache cannot prove it is fresh, or the feature is off', async () => {
    await open({ watchCache: true }, false)
    await configmaps.create(cm('a'))
    await consistentList()
    let reads = collectionReads('/configmaps/')
    assert.deepEqual((await consistentList()).items, ['a'])
    assert.equal(collectionReads('/configmaps/'), reads + 1, 'no progress from the store: read the store')
    await registry.watchCache?.close()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
    await open({ watchCache: true, watchCacheWindow: { consistentListFromCache: false } })
    await configmaps.create(cm('a'))
    await consistentList()
    reads = collectionReads('/configmaps/')
    assert.deepEqual((await consistentList()).items, ['a'])
    assert.equal(collectionReads('/configmaps/'), reads + 1, 'ConsistentListFromCache off: read the store')
  })

  it('serves resourceVersion=0 and not-older-than GETs from memory, and GETs without one from the store', async () => {
    await open({ watchCache: true })
    const a = await configmaps.create(cm('a'))
    let cached = await configmaps.get('default', 'a', '0').catch(() => undefined)
    for (let i = 0; i < 50 && !cached; i++) {
      await new Promise((r) => setTimeout(r, 20))
      cached = await configmaps.get('default', 'a', '0').catch(() => undefined)
    }
    const gets = count('get', '/configmaps/')
    assert.equal((await configmaps.get('default', 'a', '0')).metadata.resourceVersion, a.metadata.resourceVersion)
    assert.equal((await configmaps.get('default', 'a', a.metadata.resourceVersion)).metadata.uid, a.metadata.uid)
    await assert.rejects(configmaps.get('default', 'missing', '0'), (err: ApiError) => err.status.code === 404)
    assert.equal(count('get', '/configmaps/'), gets, 'the store was not asked')
    assert.equal((await configmaps.get('default', 'a')).metadata.uid, a.metadata.uid)
    assert.equal(count('get', '/configmaps/'), gets + 1, 'a GET without resourceVersion reads the store')
    const beyond = String(Number(a.metadata.resourceVersion) + 1000)
    await assert.rejects(configmaps.get('default', 'a', beyond), (err: ApiError) => {
      assert.equal(err.status.code, 504)
      // storage/errors.go NewTooLargeResourceVersionError, as the watch cache returns it.
      assert.match(err.status.message ?? '', new RegExp(`^Timeout: Too large resource version: ${beyond}, current: \\d+$`))
      assert.deepEqual(err.status.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 })
      return true
    })
  })

  it('lists from memory in the store\'s key order', async () => {
    await open({ watchCache: true })
    let last = ''
    for (const [name, ns] of [['b-2', 'other'], ['a', 'default'], ['b-10', 'default'], ['b.1', 'other'], ['a-1', 'other'], ['z', 'default']] as const) {
      last = (await configmaps.create(cm(name, ns))).metadata.resourceVersion!
    }
    const fromStore = await configmaps.list({})
    let cached = await configmaps.list({ resourceVersion: '0' })
    for (let i = 0; i < 50 && cached.resourceVersion !== last; i++) {
      await new Promise((r) => setTimeout(r, 20))
      cached = await configmaps.list({ resourceVersion: '0' })
    }
    const keys = (list: { items: KubeObject[] }) => list.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
    assert.deepEqual(keys(fromStore), ['default/a', 'default/b-10', 'default/z', 'other/a-1', 'other/b-2', 'other/b.1'])
    assert.deepEqual(keys(cached), keys(fromStore))
  })

  it('answers 410 "too old resource version: X (Y)" for a watch from before its window, and serves one from its edge', async () => {
    await open({ watchCache: true, watchCacheWindow: { minEvents: 3, eventFreshMs: 0 } })
    const { resourceVersion: start } = await configmaps.list({ resourceVersion: '0' })
    const created: KubeObject[] = []
    for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) created.push(await configmaps.create(cm(n)))
    const rv = (i: number) => created[i]!.metadata.resourceVersion!
    // The cache received all six once a watch from the newest sees nothing older.
    const probe = await configmaps.watch({ resourceVersion: rv(4) })
    assert.deepEqual(names(await nextEvents(probe, 1)), [['ADDED', 'f']])
    probe.cancel()
    // The window now holds d, e, f: the oldest deliverable is d, so c's version is the edge.
    await assert.rejects(configmaps.watch({ resourceVersion: start }), (err: ApiError) => {
      assert.ok(err instanceof ApiError)
      assert.equal(err.code, 410)
      assert.equal(err.status.reason, 'Expired')
      assert.equal(err.message, `too old resource version: ${start} (${rv(2)})`)
      return true
    })
    await assert.rejects(configmaps.watch({ resourceVersion: rv(1) }), { message: `too old resource version: ${rv(1)} (${rv(2)})` })
    const edge = await configmaps.watch({ resourceVersion: rv(2) })
    assert.deepEqual(names(await nextEvents(edge, 3)), [['ADDED', 'd'], ['ADDED', 'e'], ['ADDED', 'f']])
    edge.cancel()
  })

  it('answers from the store until it holds the resource, and says filled only then', async () => {
    dir = mkdtempSync(join(tmpdir(), 'watch-cache-'))
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    await store.create('/namespaces/default', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })))
    const stored = new Registry(store, KINDS, () => {}, {}).lookup('', 'v1', 'configmaps')!
    for (let i = 0; i < 300; i++) await stored.create(cm(`cm-${String(i).padStart(3, '0')}`))
    // A restart: the cache's first list of the configmaps is held until released.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let fills = 0
    const slow = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown
        if (prop === 'list') {
          return async (prefix: string, options?: { limit?: number }) => {
            if (prefix === '/configmaps/' && !options?.limit && fills++ === 0) await held
            return target.list(prefix, options)
          }
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
    registry = new Registry(slow, KINDS, () => {}, { watchCache: true })
    configmaps = registry.lookup('', 'v1', 'configmaps')!
    const cache = registry.watchCache!
    assert.equal(await cache.whenFilled(300), false, 'not filled while its list is held')
    assert.equal(cache.filled, false)
    // Reads meanwhile come from the store, whole and current.
    const early = await configmaps.list({ resourceVersion: '0' })
    assert.equal(early.items.length, 300)
    assert.equal((await configmaps.list({})).items.length, 300)
    assert.equal((await configmaps.get('default', 'cm-299', '0')).metadata.name, 'cm-299')
    const filled = cache.whenFilled(10_000)
    release()
    assert.equal(await filled, true)
    assert.equal(cache.filled, true)
    const before = fills
    assert.equal((await configmaps.list({ resourceVersion: '0' })).items.length, 300)
    assert.equal(fills, before, 'from memory once filled')
  })

  it('is off with --watch-cache=false', async () => {
    await open({ watchCache: false })
    const { resourceVersion } = await configmaps.list({ resourceVersion: '0' })
    const w = await configmaps.watch({ resourceVersion })
    w.cancel()
    assert.equal(registry.watchCache, undefined)
    assert.equal(count('list', '/configmaps/'), 1)
    assert.equal(count('watch', '/configmaps/'), 1)
  })

  it('is off for a resource whose --watch-cache-sizes entry is 0', async () => {
    await open({ watchCache: true, watchCacheSizes: ['configmaps#0', 'secrets#100'] })
    const { resourceVersion } = await configmaps.list({ resourceVersion: '0' })
    assert.equal(count('list', '/configmaps/'), 1, 'rv=0 read the store')
    const w1 = await configmaps.watch({ resourceVersion })
    const w2 = await configmaps.watch({ resourceVersion })
    assert.equal(count('watch', '/configmaps/'), 2, 'each watch is a store watch')
    w1.cancel()
    w2.cancel()
    assert.equal(count('watch', '/secrets/'), 1, 'a non-zero size keeps the cache')
  })
})
