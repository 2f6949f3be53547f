import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'

const CM = '/api/v1/namespaces/default/configmaps'
const json = { 'content-type': 'application/json' }

/** One line per event of a watch the server ends itself (timeoutSeconds). */
async function watchLines(server: ApiServer, query: string) {
  const reply = await server.get(`${CM}?watch=true&timeoutSeconds=1&${query}`)
  assert.equal(reply.status, 200, reply.body)
  return reply.body
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; object: { message?: string; code?: number; reason?: string; metadata?: { name?: string } } })
}

describe('api: the watch cache in the built server (end to end)', function () {
  this.timeout(60_000)
  const servers: ApiServer[] = []
  after(async () => {
    for (const s of servers) await s.stop()
  })

  const start = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const server = await ApiServer.start({ waitFor: 'ready', args, env })
    servers.push(server)
    for (const name of ['a', 'b']) {
      const r = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))
      assert.equal(r.status, 201, r.body)
    }
    return server
  }

  it('answers a watch from before the cache started with the reference 410 ERROR event', async () => {
    // The caches start with the server, before its own bootstrap writes: restart it on the same
    // data, so that the cache starts after the revisions watched from.
    const dirs = mkdtempSync(join(tmpdir(), 'watch-cache-'))
    const kept = { certDir: join(dirs, 'certs'), dataDir: join(dirs, 'data') }
    const first = await ApiServer.start({ waitFor: 'ready', ...kept })
    for (const name of ['a', 'b']) {
      const r = await first.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))
      assert.equal(r.status, 201, r.body)
    }
    await first.stop()
    const server = await ApiServer.start({ waitFor: 'ready', ...kept })
    servers.push(server)
    // resourceVersion=0 is served from the cache, which follows the writes within moments.
    let items = 0
    for (let i = 0; i < 50 && items < 2; i++) {
      items = (JSON.parse((await server.get(`${CM}?resourceVersion=0`)).body) as { items: unknown[] }).items.length
      if (items < 2) await new Promise((r) => setTimeout(r, 50))
    }
    assert.equal(items, 2)
    const events = await watchLines(server, 'resourceVersion=1')
    assert.equal(events.length, 1)
    assert.equal(events[0]!.type, 'ERROR')
    assert.equal(events[0]!.object.code, 410)
    assert.equal(events[0]!.object.reason, 'Expired')
    assert.match(events[0]!.object.message!, /^too old resource version: 1 \(\d+\)$/)
  })

  it('serves the same watch from the store with --watch-cache=false (its history is still there)', async () => {
    const server = await start(['--watch-cache=false'])
    const events = await watchLines(server, 'resourceVersion=1')
    assert.deepEqual(
      events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata?.name),
      ['a', 'b'],
    )
  })

  it('sends bookmarks at the resourceVersion of the cache, also when no event matched the watch', async () => {
    const server = await start([], { CLIENT_WATCH_BOOKMARK_INTERVAL_MS: '200' })
    const { metadata } = JSON.parse((await server.get(CM)).body) as { metadata: { resourceVersion: string } }
    const watching = server.get(`/api/v1/namespaces/kube-system/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=2&resourceVersion=${metadata.resourceVersion}`)
    await new Promise((r) => setTimeout(r, 300))
    const created = await server.get(CM, json, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere' } }))
    const rv = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion
    const lines = (await watching).body
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; object: { kind: string; apiVersion: string; metadata: { resourceVersion: string } } })
    assert.ok(lines.length > 0 && lines.every((l) => l.type === 'BOOKMARK'), JSON.stringify(lines))
    const last = lines[lines.length - 1]!
    assert.deepEqual(last.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv } })
  })
})
