import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Etcd3 } from 'etcd3'
import { CompactedError, InvalidError, TooLargeError, UnavailableError } from '../../../src/server/store/errors.js'
import { EtcdStore, supportsWatchProgress } from '../../../src/server/store/etcd-store.js'
import { requireTool } from '../../support/tools.js'
import { EtcdServer, freePorts, makeTlsFiles, requireEtcd, type TlsFiles } from '../../support/etcd.js'
import { rejectsWith, runStoreContract } from './contract.js'

describe('etcd store', function () {
  let etcd: EtcdServer | undefined

  before(async function () {
    this.timeout(30_000)
    requireEtcd(this)
    etcd = await EtcdServer.start()
  })

  after(async function () {
    await etcd?.destroy()
  })

  // Every test gets its own key prefix on the shared etcd; revisions are global there. Progress
  // requests are on whatever the installed etcd's version: the contract tests the mechanism.
  runStoreContract('etcd', async () => {
    const prefix = `/contract-${randomBytes(4).toString('hex')}`
    const open = (): Promise<EtcdStore> =>
      EtcdStore.open({ servers: [etcd!.clientUrl], prefix, compactionIntervalMs: 0, initializationTimeoutMs: 10_000, watchProgress: true })
    let current = await open()
    return {
      store: current,
      async reopen() {
        current = await open()
        return current
      },
      async destroy() {
        await current.close()
      },
    }
  })

  describe('progress requests only where the reference trusts them', () => {
    it('from etcd 3.4.31 and 3.5.13 on (etcd issues 15220 and 17507)', () => {
      for (const v of ['3.4.31', '3.4.40', '3.5.13', '3.5.21', '3.6.0', 'v3.6.4', '4.0.0']) assert.equal(supportsWatchProgress(v), true, v)
      for (const v of ['3.4.23', '3.4.30', '3.5.0', '3.5.12', '3.3.27', '2.3.8', 'unknown', '']) assert.equal(supportsWatchProgress(v), false, v)
    })

    it('a watch on a member without the fixes has no requestProgress, so a cache reads the store', async function () {
      const store = await EtcdStore.open({ servers: [etcd!.clientUrl], prefix: '/progress-check', compactionIntervalMs: 0, initializationTimeoutMs: 10_000 })
      try {
        const watch = await store.watch('/x/')
        const version = (await etcdVersion(etcd!.clientUrl)) ?? ''
        assert.match(version, /^\d+\.\d+\.\d+/)
        assert.equal(typeof watch.requestProgress === 'function', supportsWatchProgress(version), `etcd ${version}`)
        watch.cancel()
      } finally {
        await store.close()
      }
    })
  })
})

describe('etcd store configuration', function () {
  let etcd: EtcdServer | undefined

  before(async function () {
    this.timeout(30_000)
    requireEtcd(this)
    etcd = await EtcdServer.start()
  })

  after(async function () {
    await etcd?.destroy()
  })

  it('fails start-up clearly when etcd does not answer within the initialization timeout', async function () {
    const [port] = await freePorts(1)
    const started = Date.now()
    const err = await rejectsWith(
      EtcdStore.open({ servers: [`http://127.0.0.1:${port}`], initializationTimeoutMs: 1_000, compactionIntervalMs: 0 }),
      UnavailableError,
      'Unavailable',
    )
    const took = Date.now() - started
    assert.ok(took >= 900, `gave up after ${took}ms, before the initialization timeout`)
    assert.ok(took < 10_000, `gave up only after ${took}ms`)
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}`))
    assert.match(err.message, /initialization timeout of 1000ms/)
    assert.equal(err.retryable, true)
  })

  it('rejects bad server URLs and unreadable TLS files', async function () {
    await rejectsWith(EtcdStore.open({ servers: ['127.0.0.1:2379'] }), InvalidError, 'Invalid')
    await rejectsWith(EtcdStore.open({ servers: ['ftp://127.0.0.1:2379'] }), InvalidError, 'Invalid')
    await rejectsWith(EtcdStore.open({ servers: [] }), InvalidError, 'Invalid')
    const missing = await rejectsWith(
      EtcdStore.open({ servers: ['https://127.0.0.1:2379'], caFile: '/nonexistent/ca.crt' }),
      InvalidError,
      'Invalid',
    )
    assert.match(missing.message, /\/nonexistent\/ca\.crt \(ENOENT\)/)
    await rejectsWith(
      EtcdStore.open({ servers: ['https://127.0.0.1:2379'], certFile: '/x.crt' }),
      InvalidError,
      'Invalid',
    )
    await rejectsWith(
      EtcdStore.open({ servers: ['http://127.0.0.1:2379'], caFile: '/x.crt' }),
      InvalidError,
      'Invalid',
    )
  })

  it('keeps keys under its prefix, `/registry` by default', async function () {
    const store = await EtcdStore.open({ servers: [etcd!.clientUrl], compactionIntervalMs: 0 })
    const raw = new Etcd3({ hosts: etcd!.clientUrl })
    try {
      await store.create('/pods/ns/p', Buffer.from('x'))
      assert.equal(await raw.get('/registry/pods/ns/p').string(), 'x')
      await raw.put('/registryother/pods/ns/q').value('y')
      assert.deepEqual((await store.list('')).items.map(i => i.key), ['/pods/ns/p'])
    } finally {
      raw.close()
      await store.close()
    }
  })

  it('writes values larger than an HTTP/2 window and lists past gRPC\'s 4 MiB default message size', async function () {
    this.timeout(30_000)
    const prefix = `/big-${randomBytes(4).toString('hex')}`
    const store = await EtcdStore.open({ servers: [etcd!.clientUrl], prefix, compactionIntervalMs: 0 })
    const raw = new Etcd3({ hosts: etcd!.clientUrl })
    try {
      // 10 values of 600 KiB: each request is ten times HTTP/2's initial 64 KiB window, the
      // list's answer about 6 MiB.
      const values = Array.from({ length: 10 }, (_, i) => Buffer.alloc(600 * 1024, 97 + i))
      const written = await Promise.all(values.map((value, i) => store.create(`/big/k${i}`, value)))
      // What etcd holds, read by another client.
      assert.ok((await raw.get(`${prefix}/big/k3`).buffer())?.equals(values[3]!))
      const list = await store.list('/big/')
      assert.deepEqual(list.items.map(kv => kv.key), values.map((_, i) => `/big/k${i}`))
      list.items.forEach((kv, i) => {
        assert.ok(kv.value.equals(values[i]!), `value ${i} read back whole`)
        assert.equal(kv.modRevision, written[i]!.modRevision)
      })
      const page = await store.list('/big/', { limit: 4 })
      assert.equal(page.items.length, 4)
      assert.equal(page.remaining, 6)
    } finally {
      raw.close()
      await store.close()
    }
  })

  it('maps etcd\'s refusals on reads and writes to the store\'s errors', async function () {
    const prefix = `/refusals-${randomBytes(4).toString('hex')}`
    const store = await EtcdStore.open({ servers: [etcd!.clientUrl], prefix, compactionIntervalMs: 0 })
    try {
      // etcd's own limit (--max-request-bytes, 1.5 MiB by default), with etcd's text.
      const tooLarge = await rejectsWith(store.create('/k', Buffer.alloc(1.7 * 1024 * 1024, 1)), TooLargeError, 'Invalid')
      assert.equal(tooLarge.storeMessage, 'etcdserver: request is too large')
      assert.match(tooLarge.message, /etcd create "\/k" on \[.*\] was refused as too large/)
      // Past etcd's gRPC message limit (the request limit plus 512 KiB): gRPC's text.
      const pastGrpc = await rejectsWith(store.create('/k', Buffer.alloc(2 * 1024 * 1024, 1)), TooLargeError, 'Invalid')
      assert.match(pastGrpc.storeMessage, /^grpc: received message larger than max \(\d+ vs\. \d+\)$/)
      const kv = await store.create('/k', Buffer.from('v'))
      const future = await rejectsWith(store.list('/', { revision: kv.modRevision + 1000 }), InvalidError, 'Invalid')
      assert.match(future.message, /required revision \d+ is a future revision/)
      assert.equal(future.revision, kv.modRevision + 1000)
    } finally {
      await store.close()
    }
  })

  it('compacts like the reference compactor: to the revision seen one interval earlier', async function () {
    this.timeout(15_000)
    const prefix = `/compactor-${randomBytes(4).toString('hex')}`
    const store = await EtcdStore.open({ servers: [etcd!.clientUrl], prefix, compactionIntervalMs: 300 })
    const raw = new Etcd3({ hosts: etcd!.clientUrl })
    try {
      const first = await store.create('/k', Buffer.from('0'))
      let kv = first
      for (let i = 1; i < 10; i++) kv = await store.update('/k', Buffer.from(String(i)), kv.modRevision)
      const deadline = Date.now() + 10_000
      for (;;) {
        try {
          await store.list('/', { revision: first.modRevision })
        } catch (err) {
          assert.ok(err instanceof CompactedError, String(err))
          break
        }
        assert.ok(Date.now() < deadline, 'no compaction happened')
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      // Coordination happens through the reference's key, outside any prefix.
      const marker = await raw.get('compact_rev_key').string()
      assert.ok(marker !== null && Number(marker) >= first.modRevision)
      assert.equal((await store.get('/k'))?.value.toString(), '9')
    } finally {
      raw.close()
      await store.close()
    }
  })
})

describe('etcd store over TLS', function () {
  let etcd: EtcdServer | undefined
  let dir: string
  let tls: TlsFiles

  before(async function () {
    this.timeout(30_000)
    requireEtcd(this)
    requireTool(this, 'openssl')
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etcd-tls-'))
    tls = makeTlsFiles(dir)
    etcd = await EtcdServer.start({ tls })
  })

  after(async function () {
    await etcd?.destroy()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('connects with the CA, client certificate and key files', async function () {
    const store = await EtcdStore.open({
      servers: [etcd!.clientUrl],
      caFile: tls.ca,
      certFile: tls.clientCert,
      keyFile: tls.clientKey,
      compactionIntervalMs: 0,
      initializationTimeoutMs: 10_000,
    })
    try {
      const kv = await store.create('/tls/k', Buffer.from('secret'))
      assert.equal((await store.get('/tls/k'))?.modRevision, kv.modRevision)
      await store.healthCheck(2_000)
    } finally {
      await store.close()
    }
  })

  it('fails start-up without a client certificate, or trusting another CA', async function () {
    this.timeout(10_000)
    const other = makeTlsFiles(dir, 'other')
    for (const files of [
      { caFile: tls.ca },
      { caFile: other.ca, certFile: tls.clientCert, keyFile: tls.clientKey },
    ]) {
      const err = await rejectsWith(
        EtcdStore.open({ servers: [etcd!.clientUrl], ...files, compactionIntervalMs: 0, initializationTimeoutMs: 800 }),
        UnavailableError,
        'Unavailable',
      )
      assert.match(err.message, /initialization timeout/)
    }
  })
})

/** The member's version from its /version endpoint. */
async function etcdVersion(clientUrl: string): Promise<string | undefined> {
  const res = await fetch(`${clientUrl}/version`)
  return ((await res.json()) as { etcdserver?: string }).etcdserver
}
