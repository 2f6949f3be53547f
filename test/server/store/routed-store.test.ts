import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { InvalidError, UnavailableError } from '../../../src/server/store/errors.js'
import { EtcdStore } from '../../../src/server/store/etcd-store.js'
import { openStore, type StoreConfig } from '../../../src/server/store/index.js'
import { RoutedStore } from '../../../src/server/store/routed-store.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { Store } from '../../../src/server/store/types.js'
import { EtcdServer, freePorts, requireEtcd } from '../../support/etcd.js'
import { collect, rejectsWith } from './contract.js'

const base: Omit<StoreConfig, 'dataDir'> = {
  prefix: '/registry',
  compactionIntervalMs: 0,
  healthcheckTimeoutMs: 2_000,
  readycheckTimeoutMs: 2_000,
  initializationTimeoutMs: 10_000,
}

describe('routed store', function () {
  let tmp: string
  const opened: Store[] = []

  beforeEach(function () {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'store-routed-'))
  })

  afterEach(async function () {
    await Promise.all(opened.splice(0).map(s => s.close()))
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  function sqlite(name: string): SqliteStore {
    const store = SqliteStore.open({ dataDir: path.join(tmp, name), compactionIntervalMs: 0 })
    opened.push(store)
    return store
  }

  it('sends each key to the store of its resource, everything else to the default', async function () {
    const main = sqlite('main')
    const events = sqlite('events')
    const widgets = sqlite('widgets')
    const routed = new RoutedStore(
      main,
      [
        { keyPrefix: '/events/', store: events },
        { keyPrefix: '/example.com/widgets/', store: widgets },
      ],
      [
        { name: 'store-override-0', store: events },
        { name: 'store-override-1', store: widgets },
      ],
    )
    await routed.create('/pods/ns/p', Buffer.from('pod'))
    await routed.create('/events/ns/e', Buffer.from('event'))
    await routed.create('/example.com/widgets/ns/w', Buffer.from('widget'))
    assert.equal((await main.get('/pods/ns/p'))?.value.toString(), 'pod')
    assert.equal(await main.get('/events/ns/e'), null)
    assert.equal((await events.get('/events/ns/e'))?.value.toString(), 'event')
    assert.equal((await widgets.get('/example.com/widgets/ns/w'))?.value.toString(), 'widget')
    assert.equal((await routed.get('/events/ns/e'))?.value.toString(), 'event')
    assert.deepEqual((await routed.list('/events/')).items.map(i => i.key), ['/events/ns/e'])
    assert.equal(await routed.count('/example.com/widgets/ns/'), 1)

    const watch = await routed.watch('/events/ns/')
    const kv = await routed.create('/events/ns/e2', Buffer.from('again'))
    const [ev] = await collect(watch, 1)
    assert.equal(ev!.revision, kv.modRevision)
    watch.cancel()

    await rejectsWith(routed.list('/'), InvalidError, 'Invalid')
    await rejectsWith(routed.watch(''), InvalidError, 'Invalid')
    assert.deepEqual((await routed.list('/pods/')).items.map(i => i.key), ['/pods/ns/p'])
    assert.deepEqual(routed.healthChecks().map(c => c.name), ['store', 'store-override-0', 'store-override-1'])
    assert.deepEqual(routed.readyChecks().map(c => c.name), [
      'store-readiness',
      'store-override-0-readiness',
      'store-override-1-readiness',
    ])
    await routed.healthCheck(1_000)
    await events.close()
    await rejectsWith(routed.healthCheck(1_000), UnavailableError, 'Unavailable')
    await rejectsWith(routed.healthChecks()[1]!.check(), UnavailableError, 'Unavailable')
    await routed.healthChecks()[2]!.check()
  })

  it('openStore opens the embedded store when no servers are given', async function () {
    const store = await openStore({ ...base, dataDir: path.join(tmp, 'data'), servers: [] })
    opened.push(store)
    assert.equal(store.kind, 'sqlite')
    await store.create('/x/y', Buffer.from('z'))
    assert.ok(fs.existsSync(path.join(tmp, 'data', 'store.db')))
  })

  it('openStore fails on malformed overrides before opening anything', async function () {
    await rejectsWith(
      openStore({ ...base, dataDir: path.join(tmp, 'data'), overrides: ['events#http://127.0.0.1:1'] }),
      InvalidError,
      'Invalid',
    )
    assert.ok(!fs.existsSync(path.join(tmp, 'data')))
  })

  describe('with etcd', function () {
    let etcd: EtcdServer | undefined

    before(async function () {
      this.timeout(30_000)
      requireEtcd(this)
      etcd = await EtcdServer.start()
    })

    after(async function () {
      await etcd?.destroy()
    })

    it('openStore opens etcd when servers are given', async function () {
      const store = await openStore({ ...base, servers: [etcd!.clientUrl], prefix: '/opened' })
      opened.push(store)
      assert.ok(store instanceof EtcdStore)
      await store.create('/a', Buffer.from('b'))
      assert.equal((await store.get('/a'))?.value.toString(), 'b')
      await store.healthChecks()[0]!.check()
      assert.deepEqual(store.readyChecks().map(c => c.name), ['store-readiness'])
    })

    it('openStore routes overridden resources to their etcd servers, one health check per server set', async function () {
      const [deadPort] = await freePorts(1)
      const store = await openStore({
        ...base,
        dataDir: path.join(tmp, 'data'),
        servers: [],
        prefix: '/routed',
        overrides: [`/events#${etcd!.clientUrl}`, `example.com/widgets#${etcd!.clientUrl}`],
      })
      opened.push(store)
      assert.equal(store.kind, 'routed')
      await store.create('/events/ns/e', Buffer.from('event'))
      await store.create('/example.com/widgets/ns/w', Buffer.from('widget'))
      await store.create('/pods/ns/p', Buffer.from('pod'))
      const raw = await EtcdStore.open({ servers: [etcd!.clientUrl], prefix: '/routed', compactionIntervalMs: 0 })
      try {
        assert.deepEqual((await raw.list('')).items.map(i => i.key), ['/events/ns/e', '/example.com/widgets/ns/w'])
      } finally {
        await raw.close()
      }
      assert.deepEqual(store.healthChecks().map(c => c.name), ['store', 'store-override-0'])
      await store.healthCheck()

      // An override etcd that never answers fails start-up within the initialization timeout.
      const started = Date.now()
      const err = await rejectsWith(
        openStore({
          ...base,
          dataDir: path.join(tmp, 'data2'),
          initializationTimeoutMs: 500,
          overrides: [`/events#http://127.0.0.1:${deadPort}`],
        }),
        UnavailableError,
        'Unavailable',
      )
      assert.match(err.message, /initialization timeout of 500ms/)
      assert.ok(Date.now() - started < 10_000, 'a generous ceiling: it does not wait for ever')
      // ...and released the embedded store it had opened.
      const reopened = SqliteStore.open({ dataDir: path.join(tmp, 'data2'), compactionIntervalMs: 0 })
      await reopened.close()
    })
  })
})
