import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { StoreError, UnavailableError } from '../../../src/server/store/errors.js'
import { EtcdStore } from '../../../src/server/store/etcd-store.js'
import type { Store } from '../../../src/server/store/types.js'
import { EtcdServer, freePorts, requireEtcd } from '../../support/etcd.js'
import { collect, rejectsWith } from './contract.js'

/** Retries `fn` until it succeeds or `timeoutMs` passes; only retryable store errors are retried. */
async function eventually<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await fn()
    } catch (err) {
      if (!(err instanceof StoreError && err.retryable) || Date.now() > deadline) throw err
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }
}

/** Waits until /proc says the process is in `state` (T: stopped). */
async function waitForState(pid: number, state: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (Date.now() < deadline) {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith(state)) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  throw new Error(`process ${pid} did not reach state ${state}`)
}

describe('etcd store with a real etcd failing', function () {
  this.timeout(60_000)
  let etcd: EtcdServer | undefined
  const stores: Store[] = []

  before(async function () {
    requireEtcd(this)
    etcd = await EtcdServer.start()
  })

  after(async function () {
    await Promise.all(stores.map(s => s.close()))
    await etcd?.destroy()
  })

  async function open(prefix: string, requestTimeoutMs = 2_000): Promise<EtcdStore> {
    const store = await EtcdStore.open({
      servers: [etcd!.clientUrl],
      prefix,
      requestTimeoutMs,
      healthcheckTimeoutMs: 1_000,
      compactionIntervalMs: 0,
      initializationTimeoutMs: 10_000,
    })
    stores.push(store)
    return store
  }

  it('fails fast with retryable Unavailable while etcd is down, and the same store recovers when it is back', async function () {
    const prefix = `/faults-${randomBytes(4).toString('hex')}`
    const store = await open(prefix)
    const before = await store.create('/k/before', Buffer.from('1'))
    const watch = await store.watch('/k/', { fromRevision: before.modRevision + 1 })

    await etcd!.stop('SIGKILL')

    const started = Date.now()
    const health = await rejectsWith(store.healthCheck(1_000), UnavailableError, 'Unavailable')
    const took = Date.now() - started
    // Fails fast: a generous ceiling, still well under the request timeout's 15 s default.
    assert.ok(took < 10_000, `health check answered after ${took}ms with a 1000ms timeout`)
    assert.equal(health.retryable, true)
    assert.match(health.message, new RegExp(etcd!.clientUrl.replace(/[.:/]/g, '\\$&')))

    for (const op of [
      () => store.get('/k/before'),
      () => store.create('/k/during', Buffer.from('x')),
      () => store.update('/k/before', Buffer.from('x'), before.modRevision),
      () => store.list('/k/'),
      () => store.currentRevision(),
    ]) {
      const t0 = Date.now()
      const err = await rejectsWith(op(), UnavailableError, 'Unavailable')
      assert.equal(err.retryable, true)
      // Bounded by the 2 s request timeout: a generous ceiling, still under the 15 s default.
      assert.ok(Date.now() - t0 < 10_000, 'bounded by the request timeout')
    }
    await rejectsWith(store.watch('/k/'), UnavailableError, 'Unavailable')

    await etcd!.start()

    // No new store object, no process restart: the same client reconnects.
    const after = await eventually(() => store.create('/k/after', Buffer.from('2')), 15_000)
    assert.ok(after.modRevision > before.modRevision)
    assert.equal((await store.get('/k/before'))?.value.toString(), '1')
    await store.healthCheck(1_000)
    // The watch opened before the outage resumes where it stopped.
    const [ev] = await collect(watch, 1, 15_000)
    assert.equal(ev!.key, '/k/after')
    assert.equal(ev!.revision, after.modRevision)
    watch.cancel()
  })

  it('times out requests to an etcd that accepts connections but does not answer', async function () {
    const prefix = `/stall-${randomBytes(4).toString('hex')}`
    const store = await open(prefix, 500)
    await store.create('/a', Buffer.from('x'))
    // SIGSTOP freezes etcd with its sockets open: only deadlines can end the calls.
    process.kill(etcd!.pid!, 'SIGSTOP')
    try {
      await waitForState(etcd!.pid!, 'T')
      // The errors name the deadline that ended each call: the store's 500 ms request timeout,
      // and the health check's own 300 ms.
      const err = await rejectsWith(store.get('/a'), UnavailableError, 'Unavailable')
      assert.match(err.message, /timed out after 500ms/)
      const health = await rejectsWith(store.healthCheck(300), UnavailableError, 'Unavailable')
      assert.match(health.message, /timed out after 300ms/, 'the health check keeps its own timeout')
    } finally {
      process.kill(etcd!.pid!, 'SIGCONT')
    }
    assert.equal((await eventually(() => store.get('/a'), 10_000))?.value.toString(), 'x')
  })

  it('sends every call to the member that answers when another listed member refuses connections', async function () {
    const [deadPort] = await freePorts(1)
    const prefix = `/failover-${randomBytes(4).toString('hex')}`
    const store = await EtcdStore.open({
      // The dead member first, so that calls are tried on it too: a call that never left this
      // process (connection refused) goes to the next member; none fails.
      servers: [`http://127.0.0.1:${deadPort}`, etcd!.clientUrl],
      prefix,
      requestTimeoutMs: 2_000,
      compactionIntervalMs: 0,
      initializationTimeoutMs: 10_000,
    })
    stores.push(store)
    // Watches too: a watch stream that never reached the dead member is opened on the next one.
    // (After the second in which the start-up's calls had the dead member skipped; members are
    // taken in turn, so one of the two watches goes to it first.)
    await new Promise(resolve => setTimeout(resolve, 1_100))
    const watches = [await store.watch('/k/'), await store.watch('/k/')]
    for (let i = 0; i < 10; i++) {
      const kv = await store.create(`/k/${i}`, Buffer.from(String(i)))
      assert.equal((await store.get(`/k/${i}`))?.modRevision, kv.modRevision)
      const updated = await store.update(`/k/${i}`, Buffer.from(`${i}b`), kv.modRevision)
      await store.delete(`/k/${i}`, { expectedModRevision: updated.modRevision })
    }
    assert.deepEqual((await store.list('/k/')).items, [])
    for (const watch of watches) {
      const events = await collect(watch, 30)
      assert.deepEqual(events.slice(0, 3).map(e => [e.type, e.key]), [['create', '/k/0'], ['update', '/k/0'], ['delete', '/k/0']])
      watch.cancel()
    }
    await store.healthCheck(1_000)
  })

  it('lets two store clients on one etcd see each other\'s writes and watch events', async function () {
    const prefix = `/shared-${randomBytes(4).toString('hex')}`
    const a = await open(prefix)
    const b = await open(prefix)
    const watchA = await a.watch('/pods/')
    const watchB = await b.watch('/pods/')

    const byA = await a.create('/pods/ns/from-a', Buffer.from('a'))
    const byB = await b.create('/pods/ns/from-b', Buffer.from('b'))
    assert.equal((await b.get('/pods/ns/from-a'))?.modRevision, byA.modRevision)
    assert.equal((await a.get('/pods/ns/from-b'))?.modRevision, byB.modRevision)

    // A compare-and-swap from one client conflicts with the other's newer write.
    const updated = await b.update('/pods/ns/from-a', Buffer.from('a2'), byA.modRevision)
    const conflict = await a.update('/pods/ns/from-a', Buffer.from('stale'), byA.modRevision).catch((e: unknown) => e)
    assert.ok(conflict instanceof StoreError && conflict.code === 'Conflict')

    for (const watch of [watchA, watchB]) {
      const events = await collect(watch, 3)
      assert.deepEqual(
        events.map(e => [e.type, e.key, e.revision]),
        [
          ['create', '/pods/ns/from-a', byA.modRevision],
          ['create', '/pods/ns/from-b', byB.modRevision],
          ['update', '/pods/ns/from-a', updated.modRevision],
        ],
      )
      watch.cancel()
    }
    assert.equal(await a.count('/pods/'), 2)
    assert.equal(await a.currentRevision(), await b.currentRevision())
  })
})
