import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AuditBackend } from '../../../src/server/audit/backend.js'
import type { AuditEvent, Level, Stage } from '../../../src/server/audit/event.js'
import type { AuditPolicyAttributes, PolicyRuleEvaluator } from '../../../src/server/audit/policy.js'
import { unauthorized } from '../../../src/server/filters/authentication.js'
import { withFailedAuthenticationAudit } from '../../../src/server/filters/failed-authentication-audit.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Handler } from '../../../src/server/http/types.js'

function recordingBackend(): AuditBackend & { events: AuditEvent[] } {
  const events: AuditEvent[] = []
  return { name: 'recording', events, processEvents: (...e) => (events.push(...e.map((x) => structuredClone(x))), true), run: () => {}, shutdown: async () => {} }
}

function policy(level: Level, omitStages: Stage[] = [], seen: AuditPolicyAttributes[] = []): PolicyRuleEvaluator {
  return { evaluatePolicyRule: (a) => (seen.push(a), { level, omitStages, omitManagedFields: false }) }
}

async function serve(handler: Handler): Promise<{ server: Server; send(path: string, headers?: Record<string, string>): Promise<number> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    void handler(req, res, { receivedAt: Date.now(), auditId: 'id-1', url, info: resolveRequestInfo(req.method ?? 'GET', url) })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const send = (path: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
        .on('error', reject)
        .end()
    })
  return { server, send }
}

// Expected values from the reference's authn_audit_test.go and getAuthMethods.
describe('filters: failed authentication audit', () => {
  it('without a backend or a policy is the failed handler itself', () => {
    assert.equal(withFailedAuthenticationAudit(unauthorized, {}), unauthorized)
    assert.equal(withFailedAuthenticationAudit(unauthorized, { backend: recordingBackend() }), unauthorized)
  })

  it('one ResponseStarted event with the 401 and the methods tried (basic), the policy evaluated with no user', async () => {
    const backend = recordingBackend()
    const seen: AuditPolicyAttributes[] = []
    const { server, send } = await serve(withFailedAuthenticationAudit(unauthorized, { backend, policy: policy('RequestResponse', [], seen) }))
    try {
      const basic = `Basic ${Buffer.from('username:password').toString('base64')}`
      assert.equal(await send('/api/v1/namespaces/default/pods', { authorization: basic }), 401)
      assert.equal(seen.length, 1)
      assert.equal(seen[0]!.user, undefined)
      assert.equal(backend.events.length, 1)
      const ev = backend.events[0]!
      assert.equal(ev.stage, 'ResponseStarted')
      assert.equal(ev.verb, 'list')
      assert.equal(ev.requestURI, '/api/v1/namespaces/default/pods')
      assert.deepEqual(ev.user, {})
      assert.deepEqual(ev.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: basic', code: 401 })
    } finally {
      server.close()
    }
  })

  it('names each method tried, or none', async () => {
    const backend = recordingBackend()
    const { server, send } = await serve(withFailedAuthenticationAudit(unauthorized, { backend, policy: policy('Metadata') }))
    try {
      await send('/api/v1/pods?access_token=abc', { authorization: 'Bearer xyz' })
      await send('/api/v1/pods')
      assert.deepEqual(
        backend.events.map((e) => e.responseStatus?.message),
        ['Authentication failed, attempted: bearer, access_token', 'Authentication failed, no credentials provided'],
      )
    } finally {
      server.close()
    }
  })

  it('no event when the policy omits ResponseStarted or says None', async () => {
    for (const p of [policy('RequestResponse', ['ResponseStarted']), policy('None')]) {
      const backend = recordingBackend()
      const { server, send } = await serve(withFailedAuthenticationAudit(unauthorized, { backend, policy: p }))
      try {
        assert.equal(await send('/api/v1/namespaces/default/pods'), 401)
        assert.deepEqual(backend.events, [])
      } finally {
        server.close()
      }
    }
  })
})
