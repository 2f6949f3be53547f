/**
 * `--storage-media-type`: what the generic stores write for each setting, and that reading
 * follows the stored bytes, so a store written under one setting reads under another.
 */
import assert from 'node:assert/strict'
import { isProtobufEnvelope, loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { jsYaml } from '../../../src/core/util/yaml.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { StorageCodec, type StorageMediaType } from '../../../src/server/api/registry/storage-codec.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from './support.js'

const PB = 'application/vnd.kubernetes.protobuf'

describe('api: storage media type', function () {
  this.timeout(20_000)
  let t: TestRegistry

  beforeEach(async () => {
    t = await openTestRegistry('api-storage-codec-')
  })
  afterEach(async () => {
    await t.close()
  })

  async function registryWith(mediaType: StorageMediaType): Promise<Registry> {
    const codec = new StorageCodec(mediaType)
    await codec.ready()
    return new Registry(codec.wrap(t.store), KINDS)
  }

  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: name } })

  it('stores built-in kinds as protobuf by default, JSON or YAML when asked', async () => {
    for (const [mediaType, name] of [
      [PB, 'pb'],
      ['application/json', 'json'],
      ['application/yaml', 'yaml'],
    ] as const) {
      const registry = await registryWith(mediaType)
      await registry.lookup('', 'v1', 'configmaps')!.create(cm(name))
      const raw = (await t.store.get(`/configmaps/default/${name}`))!.value
      if (mediaType === PB) {
        assert.ok(isProtobufEnvelope(raw), `not protobuf: ${raw.toString('latin1')}`)
        const codec = await loadProtobufCodec()
        assert.deepEqual(codec.decode(raw).data, { k: 'pb' })
      } else if (mediaType === 'application/json') {
        assert.deepEqual((JSON.parse(raw.toString('utf8')) as { data: unknown }).data, { k: 'json' })
      } else {
        assert.equal(raw[0], 'a'.charCodeAt(0), raw.toString('utf8'))
        assert.deepEqual((jsYaml().load(raw.toString('utf8')) as { data: unknown }).data, { k: 'yaml' })
      }
      // Never the resourceVersion: it is the key's mod revision.
      const stored = new StorageCodec('application/json').decode(raw) as { metadata: Record<string, unknown> }
      assert.equal(stored.metadata.name, name)
      assert.equal(stored.metadata.resourceVersion, undefined)
    }
  })

  it('reads a store written under every setting, whatever the current one', async () => {
    for (const [mediaType, name] of [
      ['application/json', 'a'],
      [PB, 'b'],
      ['application/yaml', 'c'],
    ] as const) {
      await (await registryWith(mediaType)).lookup('', 'v1', 'configmaps')!.create(cm(name))
    }
    for (const mediaType of ['application/json', PB, 'application/yaml'] as const) {
      const store = (await registryWith(mediaType)).lookup('', 'v1', 'configmaps')!
      const { items } = await store.list({ namespace: 'default' })
      assert.deepEqual(
        items.map((i) => [i.metadata.name, (i as { data?: unknown }).data, i.metadata.resourceVersion !== undefined]),
        [
          ['a', { k: 'a' }, true],
          ['b', { k: 'b' }, true],
          ['c', { k: 'c' }, true],
        ],
      )
      const b = await store.get('default', 'b')
      assert.equal(b.kind, 'ConfigMap')
      assert.equal(b.apiVersion, 'v1')
    }
    // An update under another setting rewrites the object in that setting.
    const json = (await registryWith('application/json')).lookup('', 'v1', 'configmaps')!
    await json.update('default', 'b', (cur) => ({ ...cur, data: { k: 'b2' } }))
    assert.deepEqual((JSON.parse((await t.store.get('/configmaps/default/b'))!.value.toString('utf8')) as { data: unknown }).data, { k: 'b2' })
  })

  it('rejects a value protobuf cannot hold as the reference\'s typed decoding does (400, not 500)', async () => {
    const configmaps = (await registryWith(PB)).lookup('', 'v1', 'configmaps')!
    try {
      await configmaps.create({ ...cm('typed'), data: { a: 1 } } as unknown as ReturnType<typeof cm>)
      assert.fail('created')
    } catch (err) {
      assert.ok(err instanceof ApiError, String(err))
      assert.equal(err.code, 400)
      assert.equal(err.status.reason, 'BadRequest')
      assert.match(err.status.message, /^ConfigMap in version "v1" cannot be handled as a ConfigMap: /)
    }
    assert.equal(await t.store.get('/configmaps/default/typed'), null)
  })

  it('stores custom resources as JSON whatever the setting', async () => {
    const codec = new StorageCodec(PB)
    await codec.ready()
    const bytes = codec.encode({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, true)
    assert.deepEqual(JSON.parse(bytes.toString('utf8')), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })
  })

  it('loads the protobuf codec only when a protobuf value is read (JSON setting)', async () => {
    let loads = 0
    let loaded: Awaited<ReturnType<typeof loadProtobufCodec>> | undefined
    const lazy = new StorageCodec(
      'application/json',
      async () => {
        loads++
        loaded = await loadProtobufCodec()
        return loaded
      },
      () => loaded,
    )
    await lazy.ready()
    const registry = new Registry(lazy.wrap(t.store), KINDS)
    const configmaps = registry.lookup('', 'v1', 'configmaps')!
    await configmaps.create(cm('plain'))
    await configmaps.get('default', 'plain')
    await configmaps.list({ namespace: 'default' })
    assert.equal(loads, 0, 'a JSON store with JSON values must not load the protobuf codec')

    const watch = await configmaps.watch({ namespace: 'default', resourceVersion: String(await t.store.currentRevision()) })
    const it = watch[Symbol.asyncIterator]()
    // Another server (protobuf setting) writes into the same store.
    await (await registryWith(PB)).lookup('', 'v1', 'configmaps')!.create(cm('binary'))
    const ev = await it.next()
    watch.cancel()
    assert.equal(ev.done, false)
    assert.equal(ev.value.type, 'ADDED')
    assert.deepEqual((ev.value.object as { data?: unknown }).data, { k: 'binary' })
    assert.equal(loads, 1)
    assert.deepEqual((await configmaps.get('default', 'binary') as { data?: unknown }).data, { k: 'binary' })
  })
})
