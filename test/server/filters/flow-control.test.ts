import assert from 'node:assert/strict'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { withPriorityAndFairness } from '../../../src/server/filters/priority-and-fairness.js'
import { withMaxInFlight } from '../../../src/server/filters/max-in-flight.js'
import { chain } from '../../../src/server/http/chain.js'
import { LatencyTrackers } from '../../../src/server/http/latency-trackers.js'
import { resolveRequestInfo } from '../../../src/server/http/request-info.js'
import type { Filter, Handler } from '../../../src/server/http/types.js'

/** A server whose handler holds each request until the test releases it. */
async function serve(filter: Filter): Promise<{ server: Server; port: number; admitted: string[]; release: () => void; trackers: Map<string, LatencyTrackers> }> {
  const admitted: string[] = []
  // Each request's latency trackers (as an audited request has them), by user:n.
  const trackers = new Map<string, LatencyTrackers>()
  const held: Array<() => void> = []
  const handler: Handler = (req, res) =>
    new Promise<void>((resolve) => {
      admitted.push(String(req.headers['x-user']) + ':' + String(req.headers['x-n']))
      held.push(() => {
        res.end('done')
        resolve()
      })
    })
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const user = String(req.headers['x-user'])
    trackers.set(user + ':' + String(req.headers['x-n']), new LatencyTrackers())
    const ctx = { latencyTrackers: trackers.get(user + ':' + String(req.headers['x-n'])), receivedAt: Date.now(), auditId: 'a', url, info: resolveRequestInfo(req.method ?? 'GET', url), user: { name: user, groups: user === 'admin' ? ['system:masters', 'system:authenticated'] : user === 'anonymous' ? ['system:unauthenticated'] : ['system:authenticated'] } }
    void chain([filter], handler)(req, res, ctx)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: (server.address() as AddressInfo).port, admitted, release: () => held.shift()?.(), trackers }
}

function get(port: number, path: string, user: string, n = 0): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-user': user, 'x-n': String(n) }, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const tick = () => new Promise((r) => setTimeout(r, 50))

/** Two levels of one seat each (7 seats over shares 0 + 5 + 1 + 1): one queues, one rejects. */
const CONFIG = {
  levels: [
    {
      metadata: { name: 'narrow', uid: 'pl-narrow' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 1, queueLengthLimit: 2 } } } },
    },
    { metadata: { name: 'one-seat', uid: 'pl-one-seat' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } } },
  ],
  schemas: [
    {
      metadata: { name: 'narrow', uid: 'fs-narrow' },
      spec: {
        priorityLevelConfiguration: { name: 'narrow' },
        matchingPrecedence: 500,
        distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }, { kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
      },
    },
    {
      metadata: { name: 'rejecting', uid: 'fs-rejecting' },
      spec: {
        priorityLevelConfiguration: { name: 'one-seat' },
        matchingPrecedence: 600,
        rules: [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
      },
    },
  ],
}
const apf = () => withPriorityAndFairness({ seats: 7, configuration: () => CONFIG })

describe('server filters: flow control', () => {
  it('priority and fairness: queued requests of two flows are dispatched fairly, not in arrival order', async () => {
    const { server, port, admitted, release, trackers } = await serve(apf())
    try {
      const replies = [get(port, '/api/v1/pods', 'alice', 1)]
      await tick()
      replies.push(get(port, '/api/v1/pods', 'alice', 2), get(port, '/api/v1/pods', 'alice', 3))
      await tick()
      replies.push(get(port, '/api/v1/pods', 'bob', 1))
      await tick()
      assert.deepEqual(admitted, ['alice:1'], 'the level has one seat')
      for (let i = 0; i < 4; i++) {
        release()
        await tick()
      }
      const statuses = (await Promise.all(replies)).map((r) => r.status)
      assert.deepEqual(statuses, [200, 200, 200, 200])
      // alice has had her turn: bob, who arrived last, goes before her queued requests.
      assert.deepEqual(admitted, ['alice:1', 'bob:1', 'alice:2', 'alice:3'])
      // Only a queued request has a queue wait (the reference's TrackAPFQueueWaitLatency), as a slow request's audit annotation.
      assert.deepEqual(trackers.get('alice:1')!.annotations(), {})
      assert.match(trackers.get('bob:1')!.annotations()['apiserver.latency.k8s.io/apf-queue-wait'] ?? '', /^\d+(\.\d+)?ms$/)
    } finally {
      server.close()
    }
  })

  it('priority and fairness: a request finding its queue at queueLengthLimit gets 429 at once', async () => {
    const { server, port, release } = await serve(apf())
    try {
      const first = get(port, '/api/v1/pods', 'alice', 1)
      await tick()
      const waiting = [get(port, '/api/v1/pods', 'alice', 2), get(port, '/api/v1/pods', 'alice', 3)]
      await tick()
      const refused = await get(port, '/api/v1/pods', 'alice', 4)
      assert.equal(refused.status, 429)
      assert.equal(refused.headers['retry-after'], '1')
      assert.equal(refused.body, 'Too many requests, please try again later.\n')
      assert.equal(refused.headers['x-kubernetes-pf-prioritylevel-uid'], 'pl-narrow')
      for (let i = 0; i < 3; i++) {
        release()
        await tick()
      }
      assert.deepEqual((await Promise.all([first, ...waiting])).map((r) => r.status), [200, 200, 200])
    } finally {
      server.close()
    }
  })

  it('priority and fairness: a Reject level refuses what its seats cannot hold; exempt requests are never limited', async () => {
    const { server, port, release } = await serve(apf())
    try {
      const busy = get(port, '/api/v1/pods', 'carol', 1)
      await tick()
      const refused = await get(port, '/api/v1/pods', 'carol', 2)
      assert.equal(refused.status, 429)
      assert.equal(refused.headers['x-kubernetes-pf-flowschema-uid'], 'fs-rejecting')
      const admins = [get(port, '/api/v1/pods', 'admin', 1), get(port, '/api/v1/pods', 'admin', 2)]
      await tick()
      release()
      release()
      release()
      assert.deepEqual((await Promise.all([busy, ...admins])).map((r) => r.status), [200, 200, 200])
    } finally {
      server.close()
    }
  })

  it('priority and fairness: probes and system:masters are exempt; responses carry the flow headers', async () => {
    const { server, port, release } = await serve(withPriorityAndFairness({ seats: 1 }))
    try {
      const busy = get(port, '/api/v1/pods', 'alice')
      await tick()
      const probe = get(port, '/readyz', 'anonymous')
      const admin = get(port, '/api/v1/pods', 'admin')
      await tick()
      release()
      release()
      release()
      const [p, a, b] = await Promise.all([probe, admin, busy])
      assert.equal(p.status, 200)
      assert.equal(a.status, 200)
      assert.equal(b.status, 200)
      assert.match(String(b.headers['x-kubernetes-pf-flowschema-uid']), /^[0-9a-f-]{36}$/)
      assert.notEqual(p.headers['x-kubernetes-pf-flowschema-uid'], b.headers['x-kubernetes-pf-flowschema-uid'], 'probes are in the exempt schema')
      assert.equal(p.headers['x-kubernetes-pf-prioritylevel-uid'], a.headers['x-kubernetes-pf-prioritylevel-uid'], 'probes and admins share the exempt level')
    } finally {
      server.close()
    }
  })

  it('max-in-flight: reads and writes have separate limits; the one over is refused with 429', async () => {
    const { server, port, release } = await serve(withMaxInFlight(1, 1))
    try {
      const read = get(port, '/api/v1/pods', 'alice')
      await tick()
      const refused = await get(port, '/api/v1/namespaces/default/pods/x', 'bob')
      assert.equal(refused.status, 429)
      assert.equal(refused.headers['retry-after'], '1')
      release()
      assert.equal((await read).status, 200)
    } finally {
      server.close()
    }
  })
})

describe('server: request info', () => {
  const info = (method: string, path: string) => resolveRequestInfo(method, new URL(path, 'https://x'))
  it('resolves resource requests like the reference', () => {
    assert.deepEqual(
      (({ verb, apiGroup, apiVersion, namespace, resource, name, subresource }) => ({ verb, apiGroup, apiVersion, namespace, resource, name, subresource }))(info('GET', '/apis/apps/v1/namespaces/ns/deployments/web/scale')),
      { verb: 'get', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns', resource: 'deployments', name: 'web', subresource: 'scale' },
    )
    assert.equal(info('GET', '/api/v1/pods').verb, 'list')
    assert.equal(info('GET', '/api/v1/pods?watch=true').verb, 'watch')
    assert.equal(info('GET', '/api/v1/watch/pods').verb, 'watch')
    assert.equal(info('GET', '/api/v1/pods?watch=true').longRunning, true)
    assert.equal(info('DELETE', '/api/v1/namespaces/ns/pods').verb, 'deletecollection')
    const ns = info('GET', '/api/v1/namespaces/ns')
    assert.equal(ns.resource, 'namespaces')
    assert.equal(ns.name, 'ns')
    const status = info('PUT', '/api/v1/namespaces/ns/status')
    assert.equal(status.resource, 'namespaces')
    assert.equal(status.subresource, 'status')
    assert.equal(info('GET', '/api/v1/namespaces/ns/pods/p/log').longRunning, true)
  })
  it('non-resource requests use the lower-case method as the verb', () => {
    const r = info('HEAD', '/readyz')
    assert.equal(r.isResourceRequest, false)
    assert.equal(r.verb, 'head')
  })
})
