/**
 * GET of one object within the caller's call (GenericStore.getJsonNow / getForProtobufNow):
 * the same bytes as the promise-returning reads, kept per stored revision, the reference's
 * NotFound thrown at once, and undefined (use the promise) whenever the store cannot answer at
 * once or a resourceVersion asks for more than the current state.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { StorageCodec } from '../../../src/server/api/registry/storage-codec.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { DelegatingStore } from '../../../src/server/store/delegating-store.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { Store } from '../../../src/server/store/types.js'

const cm = (data: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default' }, data: { k: data } })

describe('api: GET of one object without a promise', function () {
  this.timeout(20_000)
  let dir: string
  let store: SqliteStore
  let registries: Registry[]

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'api-get-now-'))
    store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    await store.create('/namespaces/default', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' }, status: { phase: 'Active' } })))
    registries = []
  })
  afterEach(async () => {
    for (const r of registries) r.stop()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function registryOver(mediaType: 'application/json' | 'application/vnd.kubernetes.protobuf', over: (s: Store) => Store = (s) => s): Promise<Registry> {
    const codec = new StorageCodec(mediaType)
    await codec.ready()
    const registry = new Registry(codec.wrap(over(store)))
    registries.push(registry)
    return registry
  }

  it('JSON: the bytes of getJson, the same buffer again until the object changes', async () => {
    const configmaps = (await registryOver('application/json')).lookup('', 'v1', 'configmaps')!
    await configmaps.create(cm('a'))
    const now = configmaps.getJsonNow('default', 'one')
    assert.ok(now)
    assert.deepEqual(now, await configmaps.getJson('default', 'one'))
    assert.equal(configmaps.getJsonNow('default', 'one'), now)
    const parsed = JSON.parse(now.toString('utf8')) as { data: { k: string }; metadata: { resourceVersion: string } }
    assert.equal(parsed.data.k, 'a')
    await configmaps.update('default', 'one', (current) => ({ ...current, data: { k: 'b' } }))
    const after = JSON.parse(configmaps.getJsonNow('default', 'one')!.toString('utf8')) as typeof parsed
    assert.equal(after.data.k, 'b')
    assert.notEqual(after.metadata.resourceVersion, parsed.metadata.resourceVersion)
  })

  it('protobuf: the bytes of getForProtobuf, kept per stored revision', async () => {
    const configmaps = (await registryOver('application/vnd.kubernetes.protobuf')).lookup('', 'v1', 'configmaps')!
    await configmaps.create(cm('a'))
    const now = configmaps.getForProtobufNow('default', 'one')
    assert.ok(now && 'bytes' in now)
    const later = await configmaps.getForProtobuf('default', 'one')
    assert.ok('bytes' in later)
    assert.deepEqual(now.bytes, later.bytes)
    assert.equal(later.bytes, now.bytes, 'the kept buffer')
    await configmaps.update('default', 'one', (current) => ({ ...current, data: { k: 'b' } }))
    const changed = configmaps.getForProtobufNow('default', 'one')
    assert.ok(changed && 'bytes' in changed)
    assert.notDeepEqual(changed.bytes, now.bytes)
    assert.ok(changed.bytes.includes('b'))
  })

  it('protobuf asked of an object stored as JSON: the decoded object, as getForProtobuf gives it', async () => {
    const configmaps = (await registryOver('application/json')).lookup('', 'v1', 'configmaps')!
    await configmaps.create(cm('a'))
    const now = configmaps.getForProtobufNow('default', 'one')
    assert.ok(now && 'object' in now)
    assert.deepEqual(now, await configmaps.getForProtobuf('default', 'one'))
  })

  it('an absent object is the reference NotFound, thrown at once', async () => {
    const configmaps = (await registryOver('application/json')).lookup('', 'v1', 'configmaps')!
    for (const read of [() => configmaps.getJsonNow('default', 'missing'), () => configmaps.getForProtobufNow('default', 'missing')]) {
      assert.throws(read, (err: unknown) => err instanceof ApiError && err.status.code === 404 && err.status.message === 'configmaps "missing" not found')
    }
  })

  it('undefined (the caller reads through the promise) with a resourceVersion, or over a store that cannot read at once', async () => {
    const configmaps = (await registryOver('application/json')).lookup('', 'v1', 'configmaps')!
    await configmaps.create(cm('a'))
    assert.equal(configmaps.getJsonNow('default', 'one', '0'), undefined)
    assert.equal(configmaps.getForProtobufNow('default', 'one', '1'), undefined)
    // A layer without getNow (the encryption layer is one): nothing is read at once.
    const layered = (await registryOver('application/json', (s) => new DelegatingStore(s))).lookup('', 'v1', 'configmaps')!
    assert.equal(layered.getJsonNow('default', 'one'), undefined)
    assert.equal(layered.getForProtobufNow('default', 'one'), undefined)
    assert.ok((await layered.getJson('default', 'one')).length > 0)
  })
})
