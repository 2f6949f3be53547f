import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { configurationWatch } from '../../../src/server/flowcontrol/configuration-watch.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'

describe('flow control: the configuration watch (changes of FlowSchemas and priority levels)', function () {
  let dir: string
  let store: SqliteStore | undefined

  beforeEach(function () {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apf-config-watch-'))
  })

  afterEach(async function () {
    await store?.close()
    store = undefined
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const until = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10))
    assert.ok(done(), what)
  }

  it('fails while the store is not open, so that the cache keeps polling', async function () {
    await assert.rejects(
      configurationWatch(() => undefined)(
        () => undefined,
        () => undefined,
      ),
      /the store is not open yet/,
    )
  })

  it('reports changes under both prefixes and none elsewhere, and ends once when the store closes', async function () {
    const open = SqliteStore.open({ dataDir: dir, compactionIntervalMs: 0 })
    store = open
    let changes = 0
    let ends = 0
    await configurationWatch(() => open)(
      () => changes++,
      () => ends++,
    )
    await open.create('/configmaps/default/x', Buffer.from('{}'))
    await open.create('/flowschemas/a', Buffer.from('{}'))
    await until('a FlowSchema change', () => changes === 1)
    await open.create('/prioritylevelconfigurations/b', Buffer.from('{}'))
    await until('a priority level change', () => changes === 2)
    assert.equal(ends, 0)
    await open.close()
    store = undefined
    await until('the watches end with the store', () => ends === 1)
    await new Promise((r) => setTimeout(r, 50))
    assert.equal(ends, 1, 'both watches ending make one end')
    assert.equal(changes, 2, 'the ConfigMap was not a change')
  })
})
