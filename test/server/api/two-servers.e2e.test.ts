import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { EtcdStore } from '../../../src/server/store/etcd-store.js'
import { openJsonWatch } from '../../support/json-watch.js'
import { until } from '../../support/until.js'

const openWatch = (server: ApiServer, path: string) => openJsonWatch<WatchEvent>(server.port, path, server.tlsClient())

interface WatchEvent {
  type: string
  object: { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }
}

describe('api: two servers on one etcd (end to end)', function () {
  this.timeout(120_000)
  let etcd: EtcdServer | undefined
  let a: ApiServer | undefined
  let b: ApiServer | undefined
  const CM = '/api/v1/namespaces/default/configmaps'
  const json = { 'content-type': 'application/json' }

  before(async function () {
    requireEtcd(this)
    etcd = await EtcdServer.start()
    // Started together: both run the bootstrap post-start hooks against the same store.
    const args = [`--store-servers=${etcd.clientUrl}`]
    const [ra, rb] = await Promise.allSettled([ApiServer.start({ waitFor: 'ready', args }), ApiServer.start({ waitFor: 'ready', args })])
    if (ra.status === 'fulfilled') a = ra.value
    if (rb.status === 'fulfilled') b = rb.value
    if (ra.status === 'rejected') throw ra.reason
    if (rb.status === 'rejected') throw rb.reason
  })
  after(async () => {
    await a?.stop()
    await b?.stop()
    await etcd?.destroy()
  })

  it('both servers start together and serve the bootstrap namespaces', async () => {
    for (const s of [a!, b!]) {
      const r = await s.get('/api/v1/namespaces')
      assert.equal(r.status, 200, r.body)
      const names = (JSON.parse(r.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)
      for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(n), `${n} missing in ${names}`)
      assert.doesNotMatch(s.logs, /AlreadyExists|already exists/i)
    }
  })

  it('an object created through A is read through B', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { k: 'v' } })
    const created = await a!.get(CM, json, 'POST', body)
    assert.equal(created.status, 201, created.body)
    const got = await b!.get(`${CM}/shared`)
    assert.equal(got.status, 200, got.body)
    const obj = JSON.parse(got.body) as WatchEvent['object']
    assert.deepEqual(obj.data, { k: 'v' })
    assert.equal(obj.metadata.resourceVersion, (JSON.parse(created.body) as WatchEvent['object']).metadata.resourceVersion)
  })

  it('a watch on B receives ADDED and MODIFIED for writes through A', async () => {
    const list = await b!.get(CM)
    assert.equal(list.status, 200, list.body)
    const rv = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion
    const watch = openWatch(b!, `${CM}?watch=true&resourceVersion=${rv}`)
    try {
      assert.equal(await watch.status, 200)
      const created = await a!.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { n: '1' } }))
      assert.equal(created.status, 201, created.body)
      const obj = JSON.parse(created.body) as WatchEvent['object']
      const updated = await a!.get(`${CM}/watched`, json, 'PUT', JSON.stringify({ ...obj, apiVersion: 'v1', kind: 'ConfigMap', data: { n: '2' } }))
      assert.equal(updated.status, 200, updated.body)
      const added = await until('ADDED', () => watch.events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched'))
      const modified = await until('MODIFIED', () => watch.events.find((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'watched'))
      assert.deepEqual(added.object.data, { n: '1' })
      assert.deepEqual(modified.object.data, { n: '2' })
      assert.equal(modified.object.metadata.resourceVersion, (JSON.parse(updated.body) as WatchEvent['object']).metadata.resourceVersion)
      assert.ok(watch.events.indexOf(added) < watch.events.indexOf(modified))
    } finally {
      watch.close()
    }
  })

  it('a stale-resourceVersion update through B after A updated returns 409', async () => {
    const created = await a!.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raced' }, data: { v: '0' } }))
    assert.equal(created.status, 201, created.body)
    const stale = JSON.parse((await b!.get(`${CM}/raced`)).body) as WatchEvent['object'] & Record<string, unknown>
    const first = await a!.get(`${CM}/raced`, json, 'PUT', JSON.stringify({ ...stale, data: { v: 'a' } }))
    assert.equal(first.status, 200, first.body)
    const second = await b!.get(`${CM}/raced`, json, 'PUT', JSON.stringify({ ...stale, data: { v: 'b' } }))
    assert.equal(second.status, 409, second.body)
    const status = JSON.parse(second.body) as { kind: string; reason: string }
    assert.equal(status.kind, 'Status')
    assert.equal(status.reason, 'Conflict')
    const now = JSON.parse((await b!.get(`${CM}/raced`)).body) as WatchEvent['object']
    assert.deepEqual(now.data, { v: 'a' })
  })

  it('--endpoint-reconciler-type=lease: each server on the etcd appears in the kubernetes Endpoints and EndpointSlice, and leaves when it stops', async () => {
    const addresses = async () => {
      const ep = JSON.parse((await a!.get('/api/v1/namespaces/default/endpoints/kubernetes')).body) as { subsets?: Array<{ addresses: Array<{ ip: string }> }> }
      const slice = JSON.parse((await a!.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body) as { endpoints?: Array<{ addresses: string[] }> }
      return {
        endpoints: (ep.subsets ?? []).flatMap((s) => s.addresses.map((x) => x.ip)).join(','),
        slice: (slice.endpoints ?? []).flatMap((e) => e.addresses).join(','),
      }
    }
    const c = await ApiServer.start({ waitFor: 'ready', args: [`--store-servers=${etcd!.clientUrl}`, '--advertise-address=127.0.0.2'] })
    try {
      let seen = { endpoints: '', slice: '' }
      const deadline = Date.now() + 15_000
      while (Date.now() < deadline) {
        seen = await addresses()
        if (seen.endpoints === '127.0.0.1,127.0.0.2' && seen.slice === '127.0.0.1,127.0.0.2') break
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      assert.deepEqual(seen, { endpoints: '127.0.0.1,127.0.0.2', slice: '127.0.0.1,127.0.0.2' })
      // The leases are in the store, one per address.
      const raw = await EtcdStore.open({ servers: [etcd!.clientUrl], compactionIntervalMs: 0 })
      try {
        const leases = (await raw.list('/masterleases/')).items.map((kv) => kv.key.replace(/^.*\/masterleases\//, ''))
        assert.deepEqual(leases.sort(), ['127.0.0.1', '127.0.0.2'])
      } finally {
        await raw.close()
      }
    } finally {
      await c.stop()
    }
    assert.deepEqual(await addresses(), { endpoints: '127.0.0.1', slice: '127.0.0.1' })
  })
})
