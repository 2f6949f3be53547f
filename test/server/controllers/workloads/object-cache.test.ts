/**
 * The workload controllers' pod cache (an informer's store): filled by one list, kept by the
 * registry's writes, the writes seen during the list replayed after it without an older version
 * replacing a newer one.
 */
import assert from 'node:assert/strict'
import type { GenericStore, ObjectChange } from '../../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { ObjectCache } from '../../../../src/server/controllers/workloads/object-cache.js'

const pod = (name: string, rv: number, namespace = 'default'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, resourceVersion: String(rv) } })
const change = (type: ObjectChange['type'], object: KubeObject) => ({ type, object }) as ObjectChange
const listing = (items: KubeObject[]) => ({ list: async () => ({ items, resourceVersion: '0' }) }) as unknown as GenericStore

describe('controllers: the workload controllers pod cache', () => {
  it('keeps the newer of a listed and a replayed version, and deletions seen during the list', async () => {
    const cache = new ObjectCache()
    cache.apply(change('updated', pod('a', 5)))
    cache.apply(change('deleted', pod('b', 6)))
    cache.apply(change('updated', pod('c', 2)))
    await cache.fill(listing([pod('a', 3), pod('b', 4), pod('c', 7)]))
    assert.deepEqual(cache.list('default').map((p) => `${p.metadata.name}@${p.metadata.resourceVersion}`).sort(), ['a@5', 'c@7'])
  })

  it('follows writes after the list, per namespace', async () => {
    const cache = new ObjectCache()
    await cache.fill(listing([]))
    cache.apply(change('created', pod('a', 1)))
    cache.apply(change('created', pod('x', 2, 'other')))
    cache.apply(change('updated', pod('a', 3)))
    assert.deepEqual(cache.list('default').map((p) => p.metadata.resourceVersion), ['3'])
    cache.apply(change('deleted', pod('a', 4)))
    assert.deepEqual(cache.list('default'), [])
    assert.equal(cache.list('other').length, 1)
  })

  it('indexes objects by controller, moving them on adoption and release', async () => {
    const cache = new ObjectCache()
    await cache.fill(listing([]))
    cache.apply(change('created', pod('a', 1)))
    assert.deepEqual(cache.orphans('default').map((p) => p.metadata.name), ['a'])
    const adopted = { ...pod('a', 2), metadata: { ...pod('a', 2).metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }] } }
    cache.apply(change('updated', adopted))
    assert.deepEqual(cache.orphans('default'), [])
    assert.deepEqual(cache.owned('u1').map((p) => p.metadata.name), ['a'])
    cache.apply(change('updated', pod('a', 3)))
    assert.deepEqual(cache.owned('u1'), [])
    assert.deepEqual(cache.orphans('default').map((p) => p.metadata.name), ['a'])
    cache.apply(change('deleted', pod('a', 4)))
    assert.deepEqual(cache.orphans('default'), [])
  })
})
