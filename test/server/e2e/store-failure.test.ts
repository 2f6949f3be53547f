import assert from 'node:assert/strict'
import { createServer, type Server, type Socket } from 'node:net'
import { ApiServer } from '../../support/api-server.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'

describe('server: store failures with a real etcd (end to end)', function () {
  this.timeout(120_000)
  before(function () {
    requireEtcd(this)
  })

  it('etcd stopped: the store check fails on /readyz and /livez; etcd back: the server recovers without a restart', async () => {
    const etcd = await EtcdServer.start()
    const server = await ApiServer.start({ waitFor: 'ready', args: [`--store-servers=${etcd.clientUrl}`, '--store-healthcheck-timeout=1s', '--store-readycheck-timeout=1s'] })
    try {
      await etcd.stop()
      const ready = await server.waitForBody('/readyz', /\[-\]store failed: reason withheld\n/, 500, 15_000)
      assert.match(ready.body, /readyz check failed\n$/)
      const live = await server.waitForBody('/livez', /\[-\]store failed: reason withheld\n/, 500, 15_000)
      assert.match(live.body, /\[\+\]autoregister-completion ok\n/, 'a finished boot sequence does not fail again')
      assert.match(live.body, /livez check failed\n$/)
      const individual = await server.get('/readyz/store')
      assert.equal(individual.status, 500)
      assert.match(individual.body, /^internal server error: /)
      await etcd.start()
      await server.waitUntil('/readyz', 200, 30_000)
      assert.equal((await server.get('/livez')).body, 'ok')
    } finally {
      await server.stop()
      await etcd.destroy()
    }
  })

  it('a store that accepts connections and never answers: readyz fails while the server waits, then start-up fails clearly', async () => {
    const sockets: Socket[] = []
    const blackHole: Server = createServer((s) => sockets.push(s))
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
    const port = (blackHole.address() as { port: number }).port
    const server = await ApiServer.start({
      waitFor: 'listening',
      args: [`--store-servers=http://127.0.0.1:${port}`, '--storage-initialization-timeout=6s', '--store-readycheck-timeout=1s'],
    })
    try {
      const ready = await server.get('/readyz')
      assert.equal(ready.status, 500)
      assert.match(ready.body, /\[-\]store failed: reason withheld\n/)
      assert.match((await server.get('/readyz/store')).body, /^internal server error: store client connection not yet established\n$/)
      assert.equal(await server.waitForExit(20_000), 1)
      assert.match(server.logs, /did not answer within the initialization timeout/)
    } finally {
      await server.stop()
      for (const s of sockets) s.destroy()
      blackHole.close()
    }
  })
})
