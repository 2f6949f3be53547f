/**
 * The other connect subresources end to end, with kubectl 1.35 and raw requests: the proxies'
 * errors (a service port or endpoints missing; pods and nodes on loopback refused with the
 * reference's `address not allowed`; Endpoints cannot name loopback addresses, so the proxies'
 * way through is tested in process, proxy.test.ts),
 * port-forward's upgrade passed through to the agent's `/portForward/<ns>/<pod>`, the
 * WebSocket upgrade's `create` check (AuthorizePodWebsocketUpgradeCreatePermission), and
 * admission of CONNECT by a validating webhook.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../support/admission-webhook.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { TestNodeAgent } from '../../support/node-agent.js'

describe('node agents: proxies, port-forward, the upgrade create check and CONNECT admission (end to end)', function () {
  this.timeout(120_000)
  let agent: TestNodeAgent
  let session: KubectlSession
  let auditLog: string

  before(async function () {
    agent = await TestNodeAgent.start()
    const dir = mkdtempSync(join(tmpdir(), 'nodeagent-audit-'))
    auditLog = join(dir, 'audit.log')
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["pods/exec"]}]\n')
    session = await KubectlSession.open(this, 'nodeagent-connect-', {
      waitFor: 'ready',
      args: ['--nodeagent-preferred-address-types=InternalIP', `--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${auditLog}`],
    })
    const node = agent.node('agent-node')
    await session.ok('create', '-f', session.file('node.json', JSON.stringify(node)))
    await session.ok('patch', 'node', 'agent-node', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: node.status }))
    await session.ok('create', '-f', session.file('p1.json', JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p1', namespace: 'default' },
      spec: { nodeName: 'agent-node', containers: [{ name: 'c1', image: 'busybox', ports: [{ containerPort: 8080 }] }] },
    })))
    await session.ok('patch', 'pod', 'p1', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } }))
    await session.ok('create', '-f', session.file('svc.json', JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'agent-svc', namespace: 'default' },
      spec: { ports: [{ name: 'https', port: 443 }] },
    })))
  })
  after(async () => {
    await session?.close()
    await agent?.close()
  })

  it('services proxy errors are the reference\'s: an unknown port number, a service without endpoints', async () => {
    const port = await session.run('get', '--raw', '/api/v1/namespaces/default/services/agent-svc:81/proxy/')
    assert.match(port.stderr, /no service port 81 found for service "agent-svc"/)
    await session.ok('create', 'service', 'clusterip', 'empty-svc', '--tcp=80:80')
    // No Endpoints object: the read's NotFound, as the reference's endpoints Get returns it.
    const missing = await session.run('get', '--raw', '/api/v1/namespaces/default/services/empty-svc/proxy/')
    assert.match(missing.stderr, /endpoints "empty-svc" not found/)
    await session.ok('create', '-f', session.file('ep.json', JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empty-svc', namespace: 'default' } })))
    const empty = await session.run('get', '--raw', '/api/v1/namespaces/default/services/empty-svc/proxy/')
    assert.match(empty.stderr, /no endpoints available for service "empty-svc"/)
  })

  it('pods and nodes on a loopback address are not proxied (address not allowed)', async () => {
    const pod = await session.run('get', '--raw', '/api/v1/namespaces/default/pods/p1:8080/proxy/echo')
    assert.match(pod.stderr, /address not allowed/)
    const node = await session.run('get', '--raw', '/api/v1/nodes/agent-node/proxy/echo')
    assert.match(node.stderr, /address not allowed/)
  })

  /** A WebSocket upgrade request as the administrator (with `headers` added); its status and body. */
  const rawUpgrade = (path: string, headers: Record<string, string>) => {
    const admin = session.server.admin()
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: session.server.port,
        path,
        method: 'GET',
        cert: admin.cert,
        key: admin.key,
        rejectUnauthorized: false,
        agent: false,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'), ...headers },
      })
      req.on('response', (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      })
      req.on('upgrade', (res, socket) => {
        socket.destroy()
        resolve({ status: res.statusCode ?? 0, body: '' })
      })
      req.on('error', reject)
      req.end()
    })
  }

  it('port-forward\'s upgrade reaches the agent\'s /portForward/<ns>/<pod> with the ports and the client\'s protocols, and its answer comes back', async () => {
    const { status } = await rawUpgrade('/api/v1/namespaces/default/pods/p1/portforward?ports=8080&ports=9090', { 'Sec-WebSocket-Protocol': 'SPDY/3.1+portforward.k8s.io' })
    // The test agent speaks no port-forward protocol: its 404 is what the client gets.
    assert.equal(status, 404)
    const seen = agent.requests.filter((r) => r.path === '/portForward/default/p1').at(-1)
    assert.ok(seen, 'the agent saw the upgrade')
    assert.equal(seen.query.get('port'), '8080,9090')
    assert.equal(seen.headers.upgrade, 'websocket')
    assert.equal(seen.headers['sec-websocket-protocol'], 'SPDY/3.1+portforward.k8s.io')
  })

  it('an exec is audited once it ends, its response the switch of protocols (101)', async () => {
    assert.equal(await session.ok('exec', 'p1', '--', 'echo', 'audited'), 'audited\n')
    let complete: Record<string, any> | undefined // eslint-disable-line @typescript-eslint/no-explicit-any
    for (let i = 0; i < 50 && !complete; i++) {
      const events = readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) // eslint-disable-line @typescript-eslint/no-explicit-any
      complete = events.find((e) => e.objectRef?.subresource === 'exec' && e.stage === 'ResponseComplete' && e.user?.username !== 'viewer')
      if (!complete) await sleep(100)
    }
    assert.ok(complete, 'a ResponseComplete event for the exec')
    assert.equal(complete.verb, 'get')
    assert.equal(complete.responseStatus.code, 101)
  })

  it('a WebSocket exec allowed only as get is refused as a create (AuthorizePodWebsocketUpgradeCreatePermission)', async () => {
    const before = agent.requests.length
    await session.ok('create', 'role', 'exec-get', '--verb=get', '--resource=pods,pods/exec')
    await session.ok('create', 'rolebinding', 'exec-get', '--role=exec-get', '--user=viewer')
    const r = await session.run('exec', '--as=viewer', 'p1', '--', 'echo', 'hi')
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /pods "p1" is forbidden: User "viewer" cannot create resource "pods\/exec" in API group "" in the namespace "default"/)
    // The WebSocket GET itself, allowed as get by the chain, is refused by the create check.
    const raw = await rawUpgrade('/api/v1/namespaces/default/pods/p1/exec?command=echo&stdout=true', { 'Impersonate-User': 'viewer', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' })
    assert.equal(raw.status, 403)
    assert.match(raw.body, /User \\"viewer\\" cannot create resource \\"pods\/exec\\"/)
    assert.equal(agent.requests.slice(before).filter((q) => q.path === '/exec/default/p1/c1').length, 0, 'nothing reached the agent')
  })

  it('admission sees the exec as a CONNECT of pods/exec with its PodExecOptions, and may refuse it', async () => {
    const webhook = await AdmissionWebhookServer.start()
    try {
      webhook.respond = () => ({ allowed: false, status: { message: 'no exec here', code: 403 } })
      await session.ok('apply', '-f', session.file('webhook.yaml', [
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: ValidatingWebhookConfiguration',
        'metadata: {name: exec.example.com}',
        'webhooks:',
        '- name: exec.example.com',
        `  clientConfig: {url: "${webhook.url('/validate')}", caBundle: "${webhook.caBundle}"}`,
        '  rules: [{operations: [CONNECT], apiGroups: [""], apiVersions: [v1], resources: [pods/exec]}]',
        '  sideEffects: None',
        '  admissionReviewVersions: [v1]',
        '',
      ].join('\n')))
      let r = await session.run('exec', 'p1', '--', 'echo', 'hi')
      for (let i = 0; i < 20 && !/no exec here/.test(r.stderr); i++) {
        await sleep(200)
        r = await session.run('exec', 'p1', '--', 'echo', 'hi')
      }
      assert.match(r.stderr, /admission webhook "exec\.example\.com" denied the request: no exec here/)
      const review = webhook.reviews.at(-1)!.request as Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
      assert.equal(review.operation, 'CONNECT')
      assert.equal(review.subResource, 'exec')
      assert.equal(review.object.kind, 'PodExecOptions')
      assert.deepEqual(review.object.command, ['echo', 'hi'])
    } finally {
      await session.run('delete', 'validatingwebhookconfiguration', 'exec.example.com')
      await webhook.close()
    }
  })
})
