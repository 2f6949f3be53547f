import assert from 'node:assert/strict'
import type { ApiWatchEvent } from '../../../src/server/api/registry/generic-store.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { parseLabelSelector } from '../../../src/server/http/selectors.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'

async function rejectsWith(p: Promise<unknown>, code: number, reason: string, message?: string | RegExp): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof ApiError, `not an ApiError: ${String(err)}`)
    assert.equal(err.status.code, code)
    assert.equal(err.status.reason, reason)
    if (typeof message === 'string') assert.equal(err.status.message, message)
    else if (message) assert.match(err.status.message, message)
    return err
  }
  assert.fail('expected a rejection')
}

async function take(it: AsyncIterator<ApiWatchEvent>, n: number): Promise<ApiWatchEvent[]> {
  const out: ApiWatchEvent[] = []
  while (out.length < n) {
    const r = await it.next()
    if (r.done) break
    out.push(r.value)
  }
  return out
}

describe('api: generic store over SQLite', function () {
  let dir: string
  let store: SqliteStore
  let registry: Registry
  const cm = (name: string, ns = 'default', labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    data: { k: name },
  })

  let t: TestRegistry

  beforeEach(async () => {
    t = await openTestRegistry('api-generic-')
    ;({ dir, store, registry } = t)
  })
  afterEach(async () => {
    await t.close()
  })


  const configmaps = () => registry.lookup('', 'v1', 'configmaps')!
  const namespaces = () => registry.lookup('', 'v1', 'namespaces')!

  it('reads objects written without a resourceVersion and reports the mod revision', async () => {
    const ns = await namespaces().get(undefined, 'default')
    const kv = await store.get('/namespaces/default')
    assert.equal(ns.metadata.resourceVersion, String(kv!.modRevision))
    assert.equal(ns.kind, 'Namespace')
  })

  it('makes a generated name again when it is taken, up to 8 attempts (RetryGenerateName)', async () => {
    // Math.random drives the five-character suffix: 0 picks the alphabet's first letter.
    const realRandom = Math.random
    const sequence: number[] = []
    Math.random = () => (sequence.length ? sequence.shift()! : realRandom())
    try {
      sequence.push(0, 0, 0, 0, 0)
      const first = await configmaps().create({ metadata: { generateName: 'retry-', namespace: 'default' } })
      assert.equal(first.metadata.name, 'retry-bbbbb')
      // The first suffix is taken again; the second attempt makes a new one.
      sequence.push(0, 0, 0, 0, 0)
      const second = await configmaps().create({ metadata: { generateName: 'retry-', namespace: 'default' } })
      assert.notEqual(second.metadata.name, 'retry-bbbbb')
      assert.match(second.metadata.name!, /^retry-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
      // Eight taken names in a row: the eighth answer is the reference's AlreadyExists.
      for (let i = 0; i < 8; i++) sequence.push(0, 0, 0, 0, 0)
      await rejectsWith(configmaps().create({ metadata: { generateName: 'retry-', namespace: 'default' } }), 409, 'AlreadyExists', 'configmaps "retry-bbbbb" already exists')
      assert.equal(sequence.length, 0, 'eight attempts, five characters each')
    } finally {
      Math.random = realRandom
    }
  })

  it("retries a taken generated name on the caller's fresh copy (again), asked for only on a retry", async () => {
    const realRandom = Math.random
    const sequence: number[] = []
    Math.random = () => (sequence.length ? sequence.shift()! : realRandom())
    try {
      const request = () => ({ metadata: { generateName: 'again-', namespace: 'default' }, data: { k: 'v' } })
      let asked = 0
      const again = async () => (asked++, request())
      sequence.push(0, 0, 0, 0, 0)
      const first = await configmaps().create(request(), { handOver: true, again })
      assert.equal(first.metadata.name, 'again-bbbbb')
      assert.equal(asked, 0, 'no copy asked for when the first attempt succeeds')
      sequence.push(0, 0, 0, 0, 0)
      const second = await configmaps().create(request(), { handOver: true, again })
      assert.equal(asked, 1, 'one fresh copy for the one retry')
      assert.match(second.metadata.name!, /^again-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
      assert.notEqual(second.metadata.name, 'again-bbbbb')
      assert.deepEqual(second.data, { k: 'v' })
    } finally {
      Math.random = realRandom
    }
  })

  it('creates with server metadata, generateName, and the reference errors', async () => {
    const created = await configmaps().create(cm('a'))
    assert.match(created.metadata.uid!, /^[0-9a-f-]{36}$/)
    assert.match(created.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    // The reference's ConfigMap strategy keeps no generation (workloads do: see builtin-kinds).
    assert.equal(created.metadata.generation, undefined)
    // The revision of its own write (the service-account controller may write the namespace's `default` account just after).
    assert.equal(created.metadata.resourceVersion, String((await store.get('/configmaps/default/a'))!.modRevision))
    const stored = JSON.parse((await store.get('/configmaps/default/a'))!.value.toString())
    assert.equal(stored.metadata.resourceVersion, undefined, 'resourceVersion is never stored')

    const generated = await configmaps().create({ metadata: { generateName: 'gen-', namespace: 'default' } })
    assert.match(generated.metadata.name!, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/)

    await rejectsWith(configmaps().create(cm('a')), 409, 'AlreadyExists', 'configmaps "a" already exists')
    await rejectsWith(configmaps().create(cm('a', 'nope')), 404, 'NotFound', 'namespaces "nope" not found')
    const invalid = await rejectsWith(configmaps().create(cm('Bad_Name')), 422, 'Invalid', /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/)
    assert.equal(invalid.status.details?.causes?.[0]?.field, 'metadata.name')
    await rejectsWith(
      namespaces().create({ metadata: { name: 'a_b' } }),
      422,
      'Invalid',
      `Namespace "a_b" is invalid: metadata.name: Invalid value: "a_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    )
    // apimachinery 1.35 IsDNS1123Label: a valid subdomain that is not a label "must not contain dots".
    await rejectsWith(namespaces().create({ metadata: { name: 'a.b' } }), 422, 'Invalid', 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots')
    const dry = await configmaps().create(cm('dry'), { dryRun: true })
    assert.equal(dry.metadata.name, 'dry')
    assert.equal(await store.get('/configmaps/default/dry'), null)
  })

  it('updates with resourceVersion preconditions, keeps unchanged objects, no generation for config maps', async () => {
    const a = await configmaps().create(cm('a'))
    const same = await configmaps().update('default', 'a', (cur) => cur)
    assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion)
    const labelled = await configmaps().update('default', 'a', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } } }))
    assert.notEqual(labelled.metadata.resourceVersion, a.metadata.resourceVersion)
    const changed = await configmaps().update('default', 'a', (cur) => ({ ...cur, data: { k: 'v2' } }))
    assert.equal(changed.metadata.generation, undefined)
    assert.equal(changed.metadata.uid, a.metadata.uid)
    await rejectsWith(
      configmaps().update('default', 'a', (cur) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: a.metadata.resourceVersion }, data: {} })),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    )
    await rejectsWith(configmaps().update('default', 'zz', (cur) => cur), 404, 'NotFound', 'configmaps "zz" not found')
  })

  it('lists with selectors, limit and continue at one revision', async () => {
    for (let i = 0; i < 7; i++) await configmaps().create(cm(`c${i}`, 'default', { parity: i % 2 === 0 ? 'even' : 'odd' }))
    const all = await configmaps().list({ namespace: 'default' })
    assert.equal(all.items.length, 7)
    const page1 = await configmaps().list({ namespace: 'default', limit: 3 })
    assert.deepEqual(page1.items.map((o) => o.metadata.name), ['c0', 'c1', 'c2'])
    assert.equal(page1.remainingItemCount, 4)
    await configmaps().create(cm('c9'))
    const page2 = await configmaps().list({ namespace: 'default', limit: 3, continue: page1.continue! })
    assert.deepEqual(page2.items.map((o) => o.metadata.name), ['c3', 'c4', 'c5'])
    assert.equal(page2.resourceVersion, page1.resourceVersion)
    const page3 = await configmaps().list({ namespace: 'default', limit: 3, continue: page2.continue! })
    assert.deepEqual(page3.items.map((o) => o.metadata.name), ['c6'], 'c9 was created after the first page')
    assert.equal(page3.continue, undefined)

    const even = await configmaps().list({ namespace: 'default', labels: parseLabelSelector('parity=even'), limit: 2 })
    assert.deepEqual(even.items.map((o) => o.metadata.name), ['c0', 'c2'])
    const even2 = await configmaps().list({ namespace: 'default', labels: parseLabelSelector('parity=even'), limit: 2, continue: even.continue! })
    assert.deepEqual(even2.items.map((o) => o.metadata.name), ['c4', 'c6'])
    const byName = await configmaps().list({ fields: [{ field: 'metadata.name', operator: '=', value: 'c3' }] })
    assert.deepEqual(byName.items.map((o) => o.metadata.name), ['c3'])

    await store.compact(await store.currentRevision())
    await rejectsWith(configmaps().list({ namespace: 'default', limit: 3, continue: page1.continue! }), 410, 'Expired', /continue parameter is too old/)
  })

  it('watches from a resourceVersion, with synthetic ADDED for 0, DELETED with the deletion revision, and 410 after compaction', async () => {
    const a = await configmaps().create(cm('a'))
    const fromZero = await configmaps().watch({ namespace: 'default', resourceVersion: '0' })
    const it0 = fromZero[Symbol.asyncIterator]()
    assert.deepEqual((await take(it0, 1)).map((e) => [e.type, (e.object as { metadata: { name: string } }).metadata.name]), [['ADDED', 'a']])
    fromZero.cancel()

    const w = await configmaps().watch({ namespace: 'default', resourceVersion: a.metadata.resourceVersion! })
    const it = w[Symbol.asyncIterator]()
    await configmaps().update('default', 'a', (cur) => ({ ...cur, data: { k: 'new' } }))
    await configmaps().create(cm('b'))
    const deleted = configmaps().delete('default', 'b')
    const events = await take(it, 3)
    assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'ADDED', 'DELETED'])
    await deleted
    const rev = await store.currentRevision()
    assert.equal((events[2]!.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion, String(rev))
    w.cancel()

    await store.compact(rev)
    await rejectsWith(configmaps().watch({ resourceVersion: a.metadata.resourceVersion! }), 410, 'Expired', /too old resource version/)
  })

  it('deleting a namespace deletes its objects; the immortal ones are forbidden', async () => {
    await namespaces().create({ metadata: { name: 'team' } })
    await configmaps().create(cm('x', 'team'))
    await configmaps().create(cm('y', 'default'))
    const ns = await namespaces().delete(undefined, 'team')
    assert.equal(ns.metadata.name, 'team')
    assert.equal((ns.status as { phase?: string }).phase, 'Terminating')
    await eventually(async () => (await namespaces().list()).items.every((n) => n.metadata.name !== 'team'), 'the namespace to go')
    assert.equal((await configmaps().list({ namespace: 'team' })).items.length, 0)
    assert.equal((await configmaps().list({ namespace: 'default' })).items.length, 1)
    await rejectsWith(namespaces().delete(undefined, 'default'), 403, 'Forbidden', 'namespaces "default" is forbidden: this namespace may not be deleted')
    await rejectsWith(configmaps().delete('default', 'nope'), 404, 'NotFound', 'configmaps "nope" not found')
  })
})
