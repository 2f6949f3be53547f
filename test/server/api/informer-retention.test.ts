import assert from 'node:assert/strict'
import { Informer } from '../../../src/server/api/registry/informer.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'

const configMap = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data })

describe('Informer retention', () => {
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('informer-retention-')
  })
  afterEach(async () => {
    await t.close()
  })

  for (const retention of ['objects', 'identity'] as const) {
    it(`with ${retention}, handlers get whole objects, the informer keeps what it is told, deletes remove`, async () => {
      const store = t.registry.lookup('', 'v1', 'configmaps')!
      await store.create(configMap('a', { k: 'v' }))
      const upserts: KubeObject[] = []
      const removed: string[] = []
      const informer = new Informer(store, { upsert: (obj) => upserts.push(obj), remove: (obj) => removed.push(obj.metadata.name ?? '') }, () => {}, 1000, retention)
      informer.start()
      try {
        await informer.synced
        await store.create(configMap('b', { k: 'w' }))
        await eventually(async () => upserts.some((o) => o.metadata.name === 'b'), 'b seen')
        // The handlers always see the whole object.
        assert.deepEqual(upserts.find((o) => o.metadata.name === 'b')?.data, { k: 'w' })
        const kept = informer.get('b', 'default')!
        assert.equal(kept.metadata.name, 'b')
        assert.equal(kept.metadata.namespace, 'default')
        assert.ok(kept.metadata.uid)
        // What is kept: the whole object, or its identity alone.
        assert.deepEqual(kept.data, retention === 'objects' ? { k: 'w' } : undefined)
        await store.delete('default', 'b')
        await eventually(async () => removed.includes('b'), 'b removed')
        assert.equal(informer.get('b', 'default'), undefined)
      } finally {
        informer.stop()
      }
    })
  }
})
