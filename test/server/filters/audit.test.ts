import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent, Level, Stage } from '../../../src/server/audit/event.js'
import { levelAtLeast, levelLess, microTime } from '../../../src/server/audit/event.js'
import type { AuditPolicyAttributes, PolicyRuleEvaluator } from '../../../src/server/audit/policy.js'
import { withAudit } from '../../../src/server/filters/audit.js'
import { chain } from '../../../src/server/http/chain.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Handler } from '../../../src/server/http/types.js'

/** A backend keeping a copy of every event, as a real one must (the filter reuses events). */
function recordingBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = []
  return { name: 'recording', events, processEvents: (...e) => (events.push(...e.map((x) => structuredClone(x))), true), run: () => {}, shutdown: async () => {} }
}

function policy(level: Level, omitStages: Stage[] = [], seen: AuditPolicyAttributes[] = []): PolicyRuleEvaluator {
  return { evaluatePolicyRule: (a) => (seen.push(a), { level, omitStages, omitManagedFields: false }) }
}

async function serve(handler: Handler): Promise<{ server: Server; get(path: string): Promise<number> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    void handler(req, res, { receivedAt: Date.parse('2025-01-02T03:04:05.678Z'), auditId: 'id-1', url, info: resolveRequestInfo(req.method ?? 'GET', url), user: { name: 'alice', groups: ['system:authenticated'] } })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, headers: { 'user-agent': 'test/1' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
        .on('error', reject)
        .end()
    })
  return { server, get }
}

describe('filters: audit', () => {
  const terminal: Handler = (_req, res) => {
    res.statusCode = 201
    res.end('ok')
  }

  it('without a backend or a policy (no --audit-policy-file) is no link at all', () => {
    assert.equal(withAudit({})(terminal), terminal)
    assert.equal(withAudit({ backend: recordingBackend() })(terminal), terminal)
    assert.equal(withAudit({ policy: policy('Metadata') })(terminal), terminal)
  })

  it('a request at level None makes no event', async () => {
    const backend = recordingBackend()
    const { server, get } = await serve(chain([withAudit({ backend, policy: policy('None') })], terminal))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods'), 201)
      assert.deepEqual(backend.events, [])
    } finally {
      server.close()
    }
  })

  it('hands the backend the RequestReceived and ResponseComplete events, leaving out omitted stages', async () => {
    const backend = recordingBackend()
    const seen: AuditPolicyAttributes[] = []
    const { server, get } = await serve(chain([withAudit({ backend, policy: policy('Metadata', [], seen) })], terminal))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods/p'), 201)
      await new Promise((r) => setImmediate(r))
      assert.equal(seen[0]!.user?.name, 'alice')
      assert.equal(seen[0]!.request.resource, 'pods')
      assert.deepEqual(
        backend.events.map((e) => e.stage),
        ['RequestReceived', 'ResponseComplete'],
      )
      const [received, complete] = backend.events
      assert.deepEqual({ ...received!, stageTimestamp: undefined, sourceIPs: undefined }, {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: 'id-1',
        stage: 'RequestReceived',
        requestURI: '/api/v1/namespaces/default/pods/p',
        verb: 'get',
        user: { username: 'alice', groups: ['system:authenticated'] },
        userAgent: 'test/1',
        objectRef: { resource: 'pods', namespace: 'default', name: 'p', apiVersion: 'v1' },
        requestReceivedTimestamp: '2025-01-02T03:04:05.678000Z',
        stageTimestamp: undefined,
        sourceIPs: undefined,
      })
      assert.deepEqual(received!.sourceIPs, ['127.0.0.1'])
      assert.deepEqual(complete!.responseStatus, { metadata: {}, code: 201 })
    } finally {
      server.close()
    }

    const omitting = recordingBackend()
    const second = await serve(chain([withAudit({ backend: omitting, policy: policy('Request', ['RequestReceived']) })], terminal))
    try {
      await second.get('/version')
      await new Promise((r) => setImmediate(r))
      assert.deepEqual(omitting.events.map((e) => e.stage), ['ResponseComplete'])
      assert.equal(omitting.events[0]!.objectRef, undefined)
    } finally {
      second.server.close()
    }
  })

  it('levels order None < Metadata < Request < RequestResponse; MicroTime has six fractional digits', () => {
    assert.ok(levelLess('None', 'Metadata') && levelLess('Request', 'RequestResponse'))
    assert.ok(levelAtLeast('RequestResponse', 'Metadata') && levelAtLeast('Metadata', 'Metadata') && !levelAtLeast('None', 'Metadata'))
    assert.equal(microTime(Date.UTC(2025, 0, 2, 3, 4, 5, 6)), '2025-01-02T03:04:05.006000Z')
  })
})
