import assert from 'node:assert/strict'
import { connect, createServer, type Http2Server } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { withProbabilisticGoaway } from '../../../src/server/filters/goaway.js'
import { chain } from '../../../src/server/http/chain.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'

async function serve(chance: number, random: () => number): Promise<{ server: Http2Server; port: number }> {
  const handler = chain([withProbabilisticGoaway(chance, random)], (_req, res) => {
    res.end('ok')
  })
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x')
    void handler(req, res, { receivedAt: Date.now(), auditId: 'a', url, info: resolveRequestInfo('GET', url) })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as AddressInfo).port }
}

function twoRequests(port: number): Promise<{ goaway: boolean; bodies: string[] }> {
  return new Promise((resolve) => {
    const session = connect(`http://127.0.0.1:${port}`)
    let goaway = false
    session.on('goaway', () => (goaway = true))
    session.on('error', () => {})
    const bodies: string[] = []
    const one = () =>
      new Promise<void>((done) => {
        const stream = session.request({ ':path': '/version' })
        let body = ''
        stream.on('data', (d) => (body += d))
        stream.on('end', () => {
          bodies.push(body)
          done()
        })
        stream.on('error', () => done())
        stream.end()
      })
    void one()
      .then(() => new Promise((r) => setTimeout(r, 50)))
      .then(() => (goaway ? undefined : one()))
      .then(() => {
        session.close()
        resolve({ goaway, bodies })
      })
  })
}

describe('server filters: probabilistic GOAWAY', () => {
  it('sends a GOAWAY after the response when the draw falls under the chance', async () => {
    const { server, port } = await serve(0.02, () => 0.01)
    try {
      const { goaway, bodies } = await twoRequests(port)
      assert.equal(goaway, true)
      assert.deepEqual(bodies, ['ok'], 'the response that drew the GOAWAY is still delivered')
    } finally {
      server.close()
    }
  })
  it('keeps the connection when the draw is above the chance, or the chance is 0', async () => {
    for (const [chance, draw] of [[0.02, 0.5], [0, 0]] as const) {
      const { server, port } = await serve(chance, () => draw)
      try {
        const { goaway, bodies } = await twoRequests(port)
        assert.equal(goaway, false)
        assert.deepEqual(bodies, ['ok', 'ok'])
      } finally {
        server.close()
      }
    }
  })
})
