/**
 * Priority and fairness on a real server: a user's own PriorityLevelConfiguration (one seat,
 * Reject) and FlowSchema take effect, so that user's parallel requests are refused with 429
 * while the administrator's are not; a one-seat queuing level holds a request in its queue;
 * the debug tables and the apiserver_flowcontrol_* metrics show all of it; and only someone
 * allowed the non-resource paths can read the tables.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { ClientRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, type Reply } from '../../support/api-server.js'

const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1'
const ALL_RESOURCES = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }]

function level(name: string, limitResponse: Record<string, unknown>) {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse } },
  }
}

function schema(name: string, levelName: string, user: string) {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: levelName }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: ALL_RESOURCES }] },
  }
}

describe('priority and fairness (end to end)', function () {
  this.timeout(90_000)
  let server: ApiServer
  let dir: string
  const as = (token: string) => ({ Authorization: `Bearer ${token}` })
  const asUser = (token: string, path: string, method = 'GET', body?: string) =>
    server.get(path, { ...as(token), ...(body ? { 'Content-Type': 'application/json' } : {}) }, method, body, 'anonymous')
  const open: ClientRequest[] = []

  /** A create whose body has not all arrived: it holds its seat until `finish` sends the rest. */
  function slowCreate(token: string, name: string): { reply: Promise<Reply>; finish: () => void } {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })
    let req!: ClientRequest
    const reply = new Promise<Reply>((resolve, reject) => {
      req = httpsRequest(
        { host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/default/configmaps', method: 'POST', headers: { ...as(token), 'Content-Type': 'application/json' }, rejectUnauthorized: false, agent: false },
        (res) => {
          let data = ''
          res.setEncoding('utf8')
          res.on('data', (d) => (data += d))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: data }))
        },
      )
      req.on('error', reject)
      req.flushHeaders()
      req.write(body.slice(0, 10))
    })
    open.push(req)
    return { reply, finish: () => req.end(body.slice(10)) }
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await probe()
      if (value !== undefined) return value
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apf-e2e-'))
    writeFileSync(join(dir, 'tokens.csv'), 'slow-token,slowpoke,1\nqueue-token,queued,2\nviewer-token,viewer,3\n')
    // 150 seats: a level of 1 share among the default 245 (+2) gets exactly one.
    server = await ApiServer.start({ waitFor: 'ready', args: ['--max-requests-inflight=100', '--max-mutating-requests-inflight=50', `--token-auth-file=${join(dir, 'tokens.csv')}`] })
    for (const [path, object] of [
      [`${FLOWCONTROL}/prioritylevelconfigurations`, level('one-seat', { type: 'Reject' })],
      [`${FLOWCONTROL}/prioritylevelconfigurations`, level('one-queue', { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 5 } })],
      [`${FLOWCONTROL}/flowschemas`, schema('slowpoke', 'one-seat', 'slowpoke')],
      [`${FLOWCONTROL}/flowschemas`, schema('queued', 'one-queue', 'queued')],
      [
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'apf-users' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: ['slowpoke', 'queued'].map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
        },
      ],
    ] as const) {
      const reply = await server.get(path, { 'Content-Type': 'application/json' }, 'POST', JSON.stringify(object))
      assert.equal(reply.status, 201, reply.body)
    }
    // The configuration is re-read within a second: wait until the user's requests land in their level.
    for (const [token, name] of [['slow-token', 'one-seat'], ['queue-token', 'one-queue']] as const) {
      const uid = JSON.parse((await server.get(`${FLOWCONTROL}/prioritylevelconfigurations/${name}`)).body).metadata.uid
      await waitFor(`${name} to take effect`, async () => ((await asUser(token, '/api/v1/namespaces/default/configmaps')).headers['x-kubernetes-pf-prioritylevel-uid'] === uid ? true : undefined))
    }
  })

  after(async () => {
    for (const req of open) req.destroy()
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it("a user's one-seat Reject level: parallel requests of that user get 429 while the administrator's pass", async () => {
    const slow = slowCreate('slow-token', 'held')
    await waitFor('the slow create to hold the seat', async () => ((await server.get('/debug/api_priority_and_fairness/dump_requests')).body.includes('one-seat,') ? true : undefined))
    const [refused, again] = await Promise.all([asUser('slow-token', '/api/v1/namespaces/default/configmaps'), asUser('slow-token', '/api/v1/namespaces/default/pods')])
    for (const r of [refused, again]) {
      assert.equal(r.status, 429)
      assert.equal(r.body, 'Too many requests, please try again later.\n')
      assert.match(String(r.headers['retry-after']), /^\d+$/)
    }
    const admins = await Promise.all([1, 2, 3].map(() => server.get('/api/v1/namespaces/default/configmaps')))
    assert.deepEqual(admins.map((r) => r.status), [200, 200, 200])

    const levels = (await server.get('/debug/api_priority_and_fairness/dump_priority_levels')).body
    const lines = levels.split('\n')
    assert.match(lines[0]!, /^PriorityLevelName, +ActiveQueues, +IsIdle, +IsQuiescing, +WaitingRequests, +ExecutingRequests, +DispatchedRequests, +RejectedRequests, +TimedoutRequests, +CancelledRequests$/)
    const row = lines.find((l) => l.startsWith('one-seat,'))!
    assert.deepEqual(row.split(/,\s+/), ['one-seat', '0', 'false', 'false', '0', '1', row.split(/,\s+/)[6], '2', '0', '0'])
    // Go's tabwriter: every column as wide as its widest cell plus one space, at least 8.
    assert.equal(lines[0]!.indexOf('ActiveQueues'), 'PriorityLevelName, '.length)
    assert.ok(lines.some((l) => l.startsWith('exempt,')) && lines.some((l) => l.startsWith('catch-all,')))

    const metrics = (await server.get('/metrics')).body
    assert.match(metrics, /^apiserver_flowcontrol_rejected_requests_total\{priority_level="one-seat",flow_schema="slowpoke",reason="concurrency-limit"\} 2$/m)
    assert.match(metrics, /^apiserver_flowcontrol_nominal_limit_seats\{priority_level="one-seat"\} 1$/m)
    assert.match(metrics, /^apiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} 61$/m, 'ceil(150 × 100 / 247)')
    assert.match(metrics, /^apiserver_flowcontrol_current_executing_requests\{priority_level="one-seat",flow_schema="slowpoke"\} 1$/m)
    assert.match(metrics, /^apiserver_flowcontrol_dispatched_requests_total\{priority_level="exempt",flow_schema="exempt"\} \d+$/m)
    assert.match(metrics, /^# TYPE apiserver_flowcontrol_current_inqueue_requests gauge$/m)

    slow.finish()
    assert.equal((await slow.reply).status, 201)
    assert.equal((await asUser('slow-token', '/api/v1/namespaces/default/configmaps/held')).status, 200, 'the seat is free again')
  })

  it('a one-seat queuing level holds the second request in its queue until the seat frees', async () => {
    const slow = slowCreate('queue-token', 'first')
    await waitFor('the first create to run', async () => ((await server.get('/debug/api_priority_and_fairness/dump_requests')).body.includes('one-queue,') ? true : undefined))
    const waiting = asUser('queue-token', '/api/v1/namespaces/default/configmaps/first')
    const queues = await waitFor('a waiting request', async () => {
      const body = (await server.get('/debug/api_priority_and_fairness/dump_queues')).body
      return /^one-queue, +0, +1, +1, +1, +\S+ss, +1, +1, +\S+ss$/m.test(body) ? body : undefined
    })
    assert.match(queues.split('\n')[0]!, /^PriorityLevelName, +Index, +PendingRequests, +ExecutingRequests, +SeatsInUse, +NextDispatchR, +InitialSeatsSum, +MaxSeatsSum, +TotalWorkSum$/)
    const requests = (await server.get('/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1')).body.split('\n')
    assert.match(requests[0]!, /^PriorityLevelName, +FlowSchemaName, +QueueIndex, +RequestIndexInQueue, +FlowDistingsher, +ArriveTime, +InitialSeats, +FinalSeats, +AdditionalLatency, +StartTime, +UserName, +Verb, +APIPath, +Namespace, +Name, +APIVersion, +Resource, +SubResource$/)
    const cells = (...first: string[]) => requests.map((l) => l.split(/,\s+/)).find((c) => first.every((f, i) => c[i] === f))
    // Waiting: index 0 in queue 0, not started; executing: index -1. One queue: no flow distinguisher.
    const queued = cells('one-queue', 'queued', '0', '0')
    assert.ok(queued, requests.join('\n'))
    assert.deepEqual(queued.slice(4), ['', queued[5], '1', '0', '0s', '0001-01-01T00:00:00Z', 'queued', 'get', '/api/v1/namespaces/default/configmaps/first', 'default', 'first', 'v1', 'configmaps', ''])
    assert.match(queued[5]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
    assert.deepEqual(cells('one-queue', 'queued', '0', '-1')?.slice(10, 13), ['queued', 'create', '/api/v1/namespaces/default/configmaps'])
    // The administrator reading the table is itself an executing exempt request.
    assert.ok(cells('exempt', 'exempt', '-1', '-1'), 'the dump request itself is listed')
    assert.match((await server.get('/metrics')).body, /^apiserver_flowcontrol_current_inqueue_requests\{priority_level="one-queue",flow_schema="queued"\} 1$/m)
    slow.finish()
    assert.equal((await slow.reply).status, 201)
    assert.equal((await waiting).status, 200, 'the queued request ran once the seat was free')
  })

  it('the debug tables are non-resource paths: the administrator may read them, an unprivileged user gets 403', async () => {
    for (const path of ['dump_priority_levels', 'dump_queues', 'dump_requests']) {
      assert.equal((await server.get(`/debug/api_priority_and_fairness/${path}`)).status, 200)
      const denied = await asUser('viewer-token', `/debug/api_priority_and_fairness/${path}`)
      assert.equal(denied.status, 403, denied.body)
      assert.match(denied.body, new RegExp(`forbidden: User \\\\"viewer\\\\" cannot get path \\\\"/debug/api_priority_and_fairness/${path}\\\\"`))
    }
  })
})
