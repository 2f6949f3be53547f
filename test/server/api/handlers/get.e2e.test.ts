/**
 * GET of one object answered as JSON from the bytes kept for its stored revision
 * (GenericStore.getJson): a repeated GET is the same answer, and every write (update, delete,
 * a new object of the same name) is seen by the next GET, on both stores.
 */
import assert from 'node:assert/strict'
import { ApiServer } from '../../../support/api-server.js'
import { describeEachStore } from '../../../support/stores.js'

const CM = '/api/v1/namespaces/get-json/configmaps'
const json = { 'content-type': 'application/json' }

interface ConfigMap {
  kind: string
  apiVersion: string
  metadata: { name: string; uid: string; resourceVersion: string }
  data?: Record<string, string>
}

describeEachStore('api: GET of one object as JSON (end to end)', 'get-json', function (store) {
  this.timeout(120_000)
  let server: ApiServer

  before(async function () {
    this.timeout(60_000)
    server = await ApiServer.start({ args: store.args, waitFor: 'ready' })
    const ns = await server.get('/api/v1/namespaces', json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'get-json' } }))
    assert.equal(ns.status, 201, ns.body)
  })
  after(async () => {
    await server?.stop()
  })

  const getOne = async (name: string, query = '') => {
    const reply = await server.get(`${CM}/${name}${query}`, { accept: 'application/json' })
    return reply
  }

  it('answers each revision of an object, never an older one, and 404 once it is gone', async () => {
    const created = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: '1' } }))
    assert.equal(created.status, 201, created.body)
    const first = JSON.parse(created.body) as ConfigMap

    const a = await getOne('c')
    const b = await getOne('c')
    assert.equal(a.status, 200, a.body)
    assert.equal(a.headers['content-type'], 'application/json')
    assert.equal(a.body, b.body)
    assert.ok(a.body.endsWith('}\n'))
    const read = JSON.parse(a.body) as ConfigMap
    assert.deepEqual([read.kind, read.apiVersion, read.metadata.name, read.metadata.uid, read.metadata.resourceVersion, read.data], ['ConfigMap', 'v1', 'c', first.metadata.uid, first.metadata.resourceVersion, { v: '1' }])

    const updated = await server.get(`${CM}/c`, json, 'PUT', JSON.stringify({ ...read, data: { v: '2' } }))
    assert.equal(updated.status, 200, updated.body)
    const second = JSON.parse(updated.body) as ConfigMap
    assert.notEqual(second.metadata.resourceVersion, first.metadata.resourceVersion)
    const afterUpdate = JSON.parse((await getOne('c')).body) as ConfigMap
    assert.deepEqual([afterUpdate.metadata.resourceVersion, afterUpdate.data], [second.metadata.resourceVersion, { v: '2' }])
    // An older revision asked for by resourceVersion=0 or "not older than" is never older than asked.
    const notOlder = JSON.parse((await getOne('c', `?resourceVersion=${second.metadata.resourceVersion}`)).body) as ConfigMap
    assert.deepEqual(notOlder.data, { v: '2' })

    const deleted = await server.get(`${CM}/c`, json, 'DELETE')
    assert.equal(deleted.status, 200, deleted.body)
    assert.equal((await getOne('c')).status, 404)

    const again = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: '3' } }))
    assert.equal(again.status, 201, again.body)
    const third = JSON.parse(again.body) as ConfigMap
    const recreated = JSON.parse((await getOne('c')).body) as ConfigMap
    assert.deepEqual([recreated.metadata.uid, recreated.metadata.resourceVersion, recreated.data], [third.metadata.uid, third.metadata.resourceVersion, { v: '3' }])
    assert.notEqual(recreated.metadata.uid, first.metadata.uid)
  })

  it('the same object as YAML and as a Table is unchanged by the JSON kept for it', async () => {
    const created = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' }, data: { k: 'v' } }))
    assert.equal(created.status, 201, created.body)
    await getOne('y')
    const yaml = await server.get(`${CM}/y`, { accept: 'application/yaml' })
    assert.equal(yaml.headers['content-type'], 'application/yaml')
    assert.match(yaml.body, /^data:\n {2}k: v\n/m)
    const table = await server.get(`${CM}/y`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })
    assert.equal(JSON.parse(table.body).kind, 'Table')
  })
})
