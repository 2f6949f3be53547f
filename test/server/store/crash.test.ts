import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { EtcdStore } from '../../../src/server/store/etcd-store.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import type { Store } from '../../../src/server/store/types.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { ChildScript } from '../../support/store-child.js'

const ACKS_BEFORE_KILL = 400

function acknowledged(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(line => line.startsWith('ack '))
    .map(line => line.slice(4))
}

/**
 * Runs the writer child until it acknowledged enough writes, kills it with SIGKILL by PID
 * in the middle of its load, and returns every key it had acknowledged.
 */
async function writeThenKill(args: string[]): Promise<{ keys: string[]; pid: number }> {
  const writer = new ChildScript('store-crash-writer.ts', args)
  try {
    await writer.waitFor(out => acknowledged(out).length >= ACKS_BEFORE_KILL, 30_000)
  } finally {
    await writer.kill('SIGKILL')
  }
  assert.equal(writer.child.signalCode, 'SIGKILL', 'the writer died by the kill, not on its own')
  return { keys: acknowledged(writer.stdout), pid: writer.pid }
}

async function assertAllPresent(store: Store, keys: string[]): Promise<void> {
  const missing: string[] = []
  for (const key of keys) if ((await store.get(key)) === null) missing.push(key)
  assert.deepEqual(missing, [], `${missing.length} of ${keys.length} acknowledged writes lost`)
  assert.ok((await store.count('/crash/')) >= keys.length)
}

describe('crash safety (kill -9 mid-load)', function () {
  this.timeout(90_000)

  it('the embedded store keeps every acknowledged write', async function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-crash-'))
    try {
      const { keys, pid } = await writeThenKill(['sqlite', dir])
      assert.ok(keys.length >= ACKS_BEFORE_KILL)
      // The dead writer's lock is stale: reopening takes it over.
      const store = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
      try {
        assert.equal(store.tookOverFromPid, pid)
        await assertAllPresent(store, keys)
        console.log(`      ${keys.length} acknowledged writes, all present after kill -9`)
        // Revisions go on from where the crashed writer left them.
        const rev = await store.currentRevision()
        assert.equal((await store.create('/after/crash', Buffer.from('x'))).modRevision, rev + 1)
      } finally {
        await store.close()
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  describe('etcd', function () {
    let etcd: EtcdServer | undefined

    before(async function () {
      requireEtcd(this)
      etcd = await EtcdServer.start()
    })

    after(async function () {
      await etcd?.destroy()
    })

    it('keeps every acknowledged write, also when etcd itself is killed -9 afterwards', async function () {
      const prefix = `/crash-${randomBytes(4).toString('hex')}`
      const { keys } = await writeThenKill(['etcd', etcd!.clientUrl, prefix])
      assert.ok(keys.length >= ACKS_BEFORE_KILL)
      await etcd!.stop('SIGKILL')
      await etcd!.start()
      const store = await EtcdStore.open({
        servers: [etcd!.clientUrl],
        prefix,
        compactionIntervalMs: 0,
        initializationTimeoutMs: 15_000,
      })
      try {
        await assertAllPresent(store, keys)
        console.log(`      ${keys.length} acknowledged writes, all present after kill -9 of writer and etcd`)
      } finally {
        await store.close()
      }
    })
  })
})
