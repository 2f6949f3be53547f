import assert from 'node:assert/strict'
import { createServer, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { withAudit } from '../../../src/server/filters/audit.js'
import { chain } from '../../../src/server/http/chain.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Handler } from '../../../src/server/http/types.js'

function recordingBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = []
  return { name: 'recording', events, processEvents: (...e) => (events.push(...e.map((x) => structuredClone(x))), true), run: () => {}, shutdown: async () => {} }
}

async function serve(handler: Handler): Promise<{ server: Server; get(path: string): Promise<number> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    void handler(req, res, { receivedAt: Date.now(), auditId: 'id-1', url, info: resolveRequestInfo(req.method ?? 'GET', url), user: { name: 'alice', groups: [] } })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
        .on('error', reject)
        .end()
    })
  return { server, get }
}

const DURATION = /^\d+(\.\d+)?(ns|µs|ms|s)$/

// The reference's writeLatencyToAnnotation: at ResponseComplete, a request slower than 500ms gets its layers and the total.
describe('filters: audit latency annotations', function () {
  this.timeout(10_000)
  const backend = recordingBackend()
  let server: Server
  let get: (path: string) => Promise<number>

  before(async () => {
    // Writes a chunk, then takes `?ms=` before ending.
    const slow: Handler = (req, res) => {
      const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0)
      ;(res as ServerResponse).write('{"kind":')
      setTimeout(() => res.end('"List"}'), ms)
    }
    ;({ server, get } = await serve(chain([withAudit({ backend, policy: { evaluatePolicyRule: () => ({ level: 'Metadata', omitStages: ['RequestReceived'], omitManagedFields: false }) } })], slow)))
  })
  after(() => server.close())

  const completeOf = async (path: string) => {
    backend.events.length = 0
    assert.equal(await get(path), 200)
    return backend.events.find((e) => e.stage === 'ResponseComplete')!
  }

  it('a slow request: the response write and the total, in Go duration syntax', async () => {
    const event = await completeOf('/api/v1/namespaces/default/pods?ms=550')
    const annotations = event.annotations ?? {}
    assert.deepEqual(Object.keys(annotations).sort(), ['apiserver.latency.k8s.io/response-write', 'apiserver.latency.k8s.io/total'])
    assert.match(annotations['apiserver.latency.k8s.io/response-write']!, DURATION)
    assert.match(annotations['apiserver.latency.k8s.io/total']!, /^5\d\d(\.\d+)?ms$/)
  })

  it('a fast request: none', async () => {
    const event = await completeOf('/api/v1/namespaces/default/pods?ms=1')
    assert.equal(event.annotations, undefined)
  })

  it('a watch: none, however long it lasted', async () => {
    const event = await completeOf('/api/v1/namespaces/default/pods?watch=true&ms=550')
    assert.equal(event.annotations, undefined)
  })
})
