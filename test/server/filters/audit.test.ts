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
import type { Filter, Handler } from '../../../src/server/http/types.js'
import { noteRequestObject, noteResponseObject } from '../../../src/server/http/audit-objects.js'
import { NO_AUDIT_METRICS } from '../../../src/server/audit/metrics.js'

/** A backend keeping a copy of every event, as a real one must (the filter reuses events). */
function recordingBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = []
  return { name: 'recording', events, processEvents: (...e) => (events.push(...e.map((x) => structuredClone(x))), true), run: () => {}, shutdown: async () => {} }
}

function policy(level: Level, omitStages: Stage[] = [], seen: AuditPolicyAttributes[] = []): PolicyRuleEvaluator {
  return { evaluatePolicyRule: (a) => (seen.push(a), { level, omitStages, omitManagedFields: false }) }
}

async function serve(handler: Handler): Promise<{ server: Server; get(path: string, method?: string, body?: string): Promise<number> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    void handler(req, res, { receivedAt: Date.parse('2025-01-02T03:04:05.678Z'), auditId: 'id-1', url, info: resolveRequestInfo(req.method ?? 'GET', url), user: { name: 'alice', groups: ['system:authenticated'] } })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const get = (path: string, method = 'GET', body?: string) =>
    new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, method, headers: { 'user-agent': 'test/1' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
        .on('error', reject)
        .end(body)
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

  const settle = () => new Promise((r) => setTimeout(r, 20))

  it('blocking-strict: a RequestReceived event the backend refuses fails the request with a 500, counted as rejected', async () => {
    const refused: string[] = []
    const backend: AuditBackend = { name: 'log', processEvents: (...e) => (refused.push(...e.map((x) => x.stage)), false), run: () => {}, shutdown: async () => {} }
    let handled = false
    let rejected = 0
    const metrics = { ...NO_AUDIT_METRICS, requestRejected: () => void rejected++ }
    const { server, get } = await serve(chain([withAudit({ backend, policy: policy('Metadata'), metrics })], () => void (handled = true)))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods'), 500)
      assert.equal(handled, false, 'the request never reaches its handler')
      assert.deepEqual(refused, ['RequestReceived'])
      assert.equal(rejected, 1)
    } finally {
      server.close()
    }
  })

  it('records the impersonated user, the annotations, and the objects the handler noted, per level', async () => {
    const terminalWithObjects: Handler = (req, res, ctx) => {
      ctx.user = { name: 'bob', groups: ['devs'] }
      ctx.auditAnnotations!['authorization.k8s.io/decision'] = 'allow'
      ctx.auditAnnotations!['a.admission.k8s.io/k'] = 'v'
      noteRequestObject(req, { kind: 'ConfigMap', metadata: { name: 'cm', managedFields: [{ manager: 'm' }] } })
      noteResponseObject(res, { kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u-1', managedFields: [{ manager: 'm' }] } })
      res.statusCode = 201
      res.end('{}')
    }
    for (const [level, omitManagedFields] of [['Metadata', false], ['Request', false], ['RequestResponse', true]] as const) {
      const backend = recordingBackend()
      const evaluator: PolicyRuleEvaluator = { evaluatePolicyRule: () => ({ level, omitStages: [], omitManagedFields }) }
      const { server, get } = await serve(chain([withAudit({ backend, policy: evaluator })], terminalWithObjects))
      try {
        assert.equal(await get('/api/v1/namespaces/default/configmaps', 'POST'), 201)
        await settle()
        const complete = backend.events.find((e) => e.stage === 'ResponseComplete')!
        assert.deepEqual(complete.impersonatedUser, { username: 'bob', groups: ['devs'] })
        assert.deepEqual(Object.keys(complete.annotations!), ['a.admission.k8s.io/k', 'authorization.k8s.io/decision'], 'annotations in key order')
        assert.deepEqual(complete.objectRef, { resource: 'configmaps', namespace: 'default', name: 'cm', apiVersion: 'v1' })
        assert.equal(complete.requestObject === undefined, level === 'Metadata', `${level}: request object`)
        assert.equal(complete.responseObject === undefined, level !== 'RequestResponse', `${level}: response object`)
        if (level === 'RequestResponse') {
          assert.deepEqual(complete.requestObject, { kind: 'ConfigMap', metadata: { name: 'cm' } }, 'omitManagedFields')
          assert.deepEqual(complete.responseObject, { kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u-1' } })
        }
        if (level === 'Request') assert.deepEqual(complete.requestObject, { kind: 'ConfigMap', metadata: { name: 'cm', managedFields: [{ manager: 'm' }] } })
      } finally {
        server.close()
      }
    }
  })

  it('a Status answer is the responseStatus, with its bounded fields', async () => {
    const backend = recordingBackend()
    const notFound: Handler = (_req, res) => {
      noteResponseObject(res, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "p" not found', reason: 'NotFound', details: { name: 'p', kind: 'pods' }, code: 404 })
      res.statusCode = 404
      res.end('{}')
    }
    const { server, get } = await serve(chain([withAudit({ backend, policy: policy('Metadata') })], notFound))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods/p'), 404)
      await settle()
      assert.deepEqual(backend.events[1]!.responseStatus, { metadata: {}, status: 'Failure', message: 'pods "p" not found', reason: 'NotFound', details: { name: 'p', kind: 'pods' }, code: 404 })
      assert.equal(backend.events[1]!.responseObject, undefined)
    } finally {
      server.close()
    }
  })

  it('a long-running request has ResponseStarted when its headers go', async () => {
    const backend = recordingBackend()
    const watch: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      setTimeout(() => res.end('{}'), 20)
    }
    const { server, get } = await serve(chain([withAudit({ backend, policy: policy('Metadata') })], watch))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods?watch=true'), 200)
      await settle()
      assert.deepEqual(backend.events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete'])
      assert.deepEqual(backend.events[1]!.responseStatus, { metadata: {}, code: 200 })
    } finally {
      server.close()
    }
  })

  it('a handler that throws makes a Panic event instead of ResponseComplete, and the error goes on', async () => {
    const backend = recordingBackend()
    const thrown: unknown[] = []
    const recover: Filter = (next) => async (req, res, ctx) => {
      try {
        await next(req, res, ctx)
      } catch (err) {
        thrown.push(err)
        res.statusCode = 500
        res.end()
      }
    }
    const failing: Handler = async () => {
      throw new Error('boom')
    }
    const { server, get } = await serve(chain([recover, withAudit({ backend, policy: policy('Metadata') })], failing))
    try {
      assert.equal(await get('/api/v1/namespaces/default/pods'), 500)
      await settle()
      assert.equal(thrown.length, 1)
      assert.deepEqual(backend.events.map((e) => e.stage), ['RequestReceived', 'Panic'])
      assert.deepEqual(backend.events[1]!.responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 })
    } finally {
      server.close()
    }
  })

  it('counts each request level and each event handed over', async () => {
    const levels: string[] = []
    let events = 0
    const metrics = { ...NO_AUDIT_METRICS, policyLevel: (l: string) => void levels.push(l), event: () => void events++ }
    for (const level of ['None', 'Metadata'] as const) {
      const { server, get } = await serve(chain([withAudit({ backend: recordingBackend(), policy: policy(level), metrics })], terminal))
      try {
        await get('/version')
        await settle()
      } finally {
        server.close()
      }
    }
    assert.deepEqual(levels, ['None', 'Metadata'])
    assert.equal(events, 2)
  })
})
