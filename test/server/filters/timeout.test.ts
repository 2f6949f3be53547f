import assert from 'node:assert/strict'
import { createServer, get, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { withTimeout } from '../../../src/server/filters/timeout.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Handler } from '../../../src/server/http/types.js'

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

/** A server running `inner` behind the timeout filter with a deadline `ms` away; records how many timers the filter left armed. */
async function serve(ms: number, inner: Handler): Promise<{ server: Server; port: number; armed: number[] }> {
  const handler = withTimeout()(inner)
  const armed: number[] = []
  const server = createServer((req, res) => {
    res.setHeader('Audit-Id', 'outer')
    const url = new URL(req.url ?? '/', 'http://x')
    const receivedAt = Date.now()
    const before = timers()
    void handler(req, res, { receivedAt, deadline: receivedAt + ms, auditId: 'a', rawQuery: '', url, info: resolveRequestInfo('GET', url) } as never)
    armed.push(timers() - before)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as AddressInfo).port, armed }
}

function fetchOnce(port: number): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/x', agent: false }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    }).on('error', reject)
  })
}

describe('server filters: request timeout', () => {
  let server: Server | undefined
  afterEach(() => server?.close())

  it('arms no timer for a response the handler ended within its call', async () => {
    const s = await serve(60_000, (_req, res) => {
      res.end('ok')
    })
    server = s.server
    const r = await fetchOnce(s.port)
    assert.equal(r.status, 200)
    assert.equal(r.body, 'ok')
    assert.deepEqual(s.armed, [0])
  })

  it('answers 504 at the deadline for a handler still working, without the headers it set', async () => {
    const s = await serve(200, (_req, res) => {
      res.setHeader('X-Inner', 'set by the handler')
      return new Promise<void>(() => {})
    })
    server = s.server
    const r = await fetchOnce(s.port)
    assert.deepEqual(s.armed, [1])
    assert.equal(r.status, 504)
    assert.equal(r.headers['x-inner'], undefined)
    assert.equal(r.headers['audit-id'], 'outer')
    assert.equal(r.body, '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n')
  })

  it('a handler that answers later, before the deadline, is not cut off', async () => {
    const s = await serve(60_000, (_req, res) => new Promise<void>((resolve) => setTimeout(() => (res.end('late'), resolve()), 50)))
    server = s.server
    const r = await fetchOnce(s.port)
    assert.equal(r.status, 200)
    assert.equal(r.body, 'late')
    assert.deepEqual(s.armed, [2]) // the filter's timer and the handler's own
  })
})
