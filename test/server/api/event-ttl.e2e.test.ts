import assert from 'node:assert/strict'
import type { ApiServer } from '../../support/api-server.js'
import { openJsonWatch } from '../../support/json-watch.js'
import { KubectlSession } from '../../support/kubectl-session.js'

interface WatchLine {
  type: string
  object: { metadata?: { name?: string } }
}

const openWatch = (server: ApiServer, path: string) => openJsonWatch<WatchLine>(server.port, path, server.tlsClient())

describe('api: --event-ttl and --min-request-timeout (end to end)', function () {
  this.timeout(60_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'event-ttl-', { waitFor: 'ready', args: ['--event-ttl=2s', '--min-request-timeout=1'] })
  })
  after(async () => {
    await session?.close()
  })

  it('deletes events once --event-ttl ran out, with a DELETED watch event; other objects stay', async () => {
    const watch = openWatch(session.server, '/api/v1/namespaces/default/events?watch=true&timeoutSeconds=30')
    const event = session.file(
      'event.yaml',
      'apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\ninvolvedObject:\n  kind: ConfigMap\n  name: c1\n  namespace: default\nreason: Testing\nmessage: hello\ntype: Normal\n',
    )
    const created = Date.now()
    await session.ok('create', '-f', event)
    // (The event lived: the watch saw it added before it was deleted. Reading it back with
    // kubectl here would race its 2 s TTL on a loaded machine.)
    await session.ok('create', '-f', session.file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n'))
    const deadline = Date.now() + 15_000
    while (!watch.events.some((e) => e.type === 'DELETED')) {
      if (Date.now() > deadline) assert.fail(`no DELETED event: ${JSON.stringify(watch.events)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    const expiredAfter = Date.now() - created
    watch.close()
    assert.ok(expiredAfter >= 1_900, `the event expired ${expiredAfter} ms after its creation, before --event-ttl=2s`)
    assert.deepEqual(
      watch.events.map((e) => [e.type, e.object.metadata?.name]),
      [
        ['ADDED', 'e1'],
        ['DELETED', 'e1'],
      ],
    )
    const r = await session.run('get', 'event', 'e1')
    assert.equal(r.stderr.trim(), 'Error from server (NotFound): events "e1" not found')
    assert.match(await session.ok('get', 'cm', 'c1'), /^c1\s/m)
  })

  it('ends a watch without timeoutSeconds on its own, not before --min-request-timeout', async () => {
    // The random choice itself is unit-tested (test/server/api/handlers/watch.test.ts); here the
    // server ends the watches on its own, not before the minimum.
    const durations = await Promise.all([0, 1, 2].map(() => openWatch(session.server, '/api/v1/namespaces/default/configmaps?watch=true').ended))
    for (const ms of durations) {
      assert.ok(ms >= 950, `a watch ended after ${ms} ms, before --min-request-timeout=1`)
      assert.ok(ms < 30_000, `a watch ended only after ${ms} ms`)
    }
  })
})
