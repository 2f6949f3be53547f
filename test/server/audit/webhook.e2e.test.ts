/**
 * The audit webhook backend end to end with the real kubectl: a server with an audit policy
 * (secrets at Metadata, config maps at RequestResponse, nodes ignored, nothing else),
 * `--audit-webhook-config-file` naming a local HTTPS receiver (its CA in the kubeconfig), in
 * the default batch mode, and the log backend beside it. `kubectl create` of a config map and
 * a secret arrive as events in audit.k8s.io/v1 EventList batches, the same events as the
 * log's; with the receiver down for 5 s requests go on at once, and once it is back the
 * retries deliver every event of that time (nothing lost within the buffer). With truncation
 * on, an event too large loses its bodies, and one still too large is dropped and counted.
 * In blocking-strict mode a request waits for its RequestReceived event to be taken, and fails
 * when the receiver is down. A receiver that never answers holds no request, and past the
 * buffer events are dropped and counted.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { KubectlSession } from '../../support/kubectl-session.js'
import { KUBECTLS, MAIN_KUBECTL } from '../../support/kubectl-versions.js'
import { type Pki, Receiver, makePki } from './webhook-receiver.js'

type Obj = Record<string, any>

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  userGroups: ["system:nodes"]
- level: Metadata
  resources: [{group: "", resources: ["secrets"]}]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
- level: None
`

for (const kubectl of KUBECTLS) {
  describe(`audit webhook backend end to end [kubectl ${kubectl.version}]`, function () {
    this.timeout(120_000)
    let pki: Pki
    let receiver: Receiver
    let session: KubectlSession
    let dir: string

    before(async function () {
      pki = await makePki()
      receiver = new Receiver(pki)
      await receiver.listen()
      dir = mkdtempSync(join(tmpdir(), 'audit-webhook-e2e-'))
      const kubeconfig = join(dir, 'audit-webhook.kubeconfig')
      writeFileSync(
        kubeconfig,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: audit\n  cluster:\n    server: ${receiver.url}/events\n    certificate-authority-data: ${Buffer.from(pki.caCert).toString('base64')}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: default\n  context: {cluster: audit, user: apiserver}\ncurrent-context: default\n`,
      )
      const policy = join(dir, 'policy.yaml')
      writeFileSync(policy, POLICY)
      session = await KubectlSession.open(this, 'audit-webhook-', {
        waitFor: 'ready',
        kubectl: kubectl.tool,
        args: [`--audit-policy-file=${policy}`, `--audit-log-path=${join(dir, 'audit.log')}`, `--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-initial-backoff=1s', '--audit-webhook-batch-max-wait=200ms'],
      })
    })
    after(async () => {
      await session?.close()
      await receiver?.close()
      if (dir) rmSync(dir, { recursive: true, force: true })
    })

    /** Every event the receiver got, in order. */
    const received = (): Obj[] => receiver.deliveries.flatMap((d) => d.body.items as Obj[])

    /** The ResponseComplete events of creates of a named object. */
    const creates = (resource: string, name?: string) =>
      received().filter((e) => e.verb === 'create' && e.objectRef?.resource === resource && e.stage === 'ResponseComplete' && (name === undefined || e.objectRef?.name === name))

    /** The log backend's events (one JSON line each). */
    const logged = (): Obj[] =>
      readFileSync(join(dir, 'audit.log'), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Obj)

    async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs
      while (!check()) {
        if (Date.now() > deadline) assert.fail(`${what}: not received in ${timeoutMs} ms; got ${JSON.stringify(received().map((e) => [e.verb, e.requestURI, e.stage]))}`)
        await sleep(50)
      }
    }


    it('a config map created with kubectl arrives at RequestResponse in an audit.k8s.io/v1 EventList POSTed to the kubeconfig server\'s path', async () => {
      await session.ok('create', 'configmap', 'audited', '--from-literal=k=v')
      await until(() => creates('configmaps', 'audited').length > 0, 'the create event')
      const delivery = receiver.deliveries.find((d) => (d.body.items as Obj[]).some((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps'))!
      assert.equal(delivery.method, 'POST')
      assert.equal(delivery.path, '/events')
      assert.equal(delivery.contentType, 'application/json')
      assert.equal(delivery.body.kind, 'EventList')
      assert.equal(delivery.body.apiVersion, 'audit.k8s.io/v1')
      await sleep(500)
      const [event, ...more] = creates('configmaps', 'audited')
      assert.equal(more.length, 0, 'one create, one event')
      assert.deepEqual(received().filter((e) => e.stage === 'RequestReceived'), [], 'the policy omits RequestReceived')
      assert.equal(event!.level, 'RequestResponse')
      assert.equal(event!.stage, 'ResponseComplete')
      assert.equal(event!.requestURI.split('?')[0], '/api/v1/namespaces/default/configmaps')
      assert.equal(event!.objectRef.namespace, 'default')
      assert.equal(event!.objectRef.apiVersion, 'v1')
      assert.equal(event!.responseStatus.code, 201)
      assert.match(event!.userAgent, /^kubectl/)
      assert.match(event!.auditID, /^[0-9a-f-]{36}$/)
      assert.deepEqual(event!.requestObject?.data, { k: 'v' })
      assert.equal(event!.responseObject?.metadata?.name, 'audited')
    })

    it('a secret arrives at Metadata: no bodies', async () => {
      await session.ok('create', 'secret', 'generic', 'audited', '--from-literal=password=hunter2')
      await until(() => creates('secrets', 'audited').length > 0, 'the secret\'s create event')
      const [event] = creates('secrets', 'audited')
      assert.equal(event!.level, 'Metadata')
      assert.equal(event!.requestObject, undefined)
      assert.equal(event!.responseObject, undefined)
      assert.doesNotMatch(JSON.stringify(receiver.deliveries.map((d) => d.body)), /hunter2|aHVudGVyMg/)
    })

    it('the receiver down for 5 s: requests go on at once, and once it is back every event of that time arrives', async () => {
      const port = receiver.port
      await receiver.close()
      const names = ['down-1', 'down-2', 'down-3', 'down-4', 'down-5']
      const before = creates('configmaps').length
      const started = Date.now()
      for (const name of names) {
        const before = Date.now()
        await session.ok('create', 'configmap', name, '--from-literal=k=v')
        // A request waiting for the webhook would wait for its five attempts: 1 + 1.5 + 2.25 + 3.375 s at least.
        assert.ok(Date.now() - before < 8_000, `kubectl create ${name} took ${Date.now() - before} ms with the receiver down`)
      }
      await sleep(Math.max(0, 5_000 - (Date.now() - started)))
      await receiver.listen(port)
      assert.equal(creates('configmaps').length, before, 'nothing arrived while the receiver was down')
      for (const name of names) await until(() => creates('configmaps', name).length > 0, `the create event of ${name}`)
      await sleep(500)
      for (const name of names) assert.equal(creates('configmaps', name).length, 1, `the create event of ${name}, once`)
      assert.doesNotMatch(session.server.logs, /Error in audit plugin/)
    })

    it('the receiver got the same events as the log backend, each once', async () => {
      const key = (e: Obj) => `${e.auditID} ${e.stage}`
      await until(() => received().length >= logged().length, 'as many events as the log')
      const fromLog = logged().map(({ kind: _kind, apiVersion: _apiVersion, ...item }) => item)
      assert.ok(fromLog.length >= 7, `the creates of this suite are logged: ${fromLog.length} events`)
      const sort = (events: Obj[]) => [...events].sort((a, b) => key(a).localeCompare(key(b)))
      assert.equal(new Set(received().map(key)).size, received().length, 'no event twice')
      assert.deepEqual(sort(received()), sort(fromLog))
    })
  })
}

describe(`audit webhook truncation end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let receiver: Receiver
  let session: KubectlSession
  let dir: string

  before(async function () {
    const pki = await makePki()
    receiver = new Receiver(pki)
    await receiver.listen()
    dir = mkdtempSync(join(tmpdir(), 'audit-webhook-trunc-e2e-'))
    const kubeconfig = join(dir, 'audit-webhook.kubeconfig')
    writeFileSync(kubeconfig, JSON.stringify({ clusters: [{ cluster: { server: receiver.url, 'certificate-authority-data': Buffer.from(pki.caCert).toString('base64') } }] }))
    const policy = join(dir, 'policy.yaml')
    writeFileSync(policy, POLICY)
    session = await KubectlSession.open(this, 'audit-webhook-trunc-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      args: [
        `--audit-policy-file=${policy}`,
        `--audit-webhook-config-file=${kubeconfig}`,
        '--audit-webhook-batch-max-wait=200ms',
        '--audit-webhook-truncate-enabled',
        '--audit-webhook-truncate-max-event-size=4000',
        '--audit-webhook-truncate-max-batch-size=8000',
      ],
    })
  })
  after(async () => {
    await session?.close()
    await receiver?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const received = (): Obj[] => receiver.deliveries.flatMap((d) => d.body.items as Obj[])
  const named = (verb: string, name: string) => received().filter((e) => e.verb === verb && e.objectRef?.name === name)

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`${what}: not received; got ${JSON.stringify(received().map((e) => [e.verb, e.requestURI.slice(0, 80), e.stage]))}`)
      await sleep(50)
    }
  }

  it('an event within the max size keeps its bodies', async () => {
    await session.ok('create', 'configmap', 'small', '--from-literal=k=v')
    await until(() => named('create', 'small').length > 0, 'the small create')
    const [event] = named('create', 'small')
    assert.deepEqual(event!.requestObject?.data, { k: 'v' })
    assert.equal(event!.annotations?.['audit.k8s.io/truncated'], undefined)
  })

  it('an event over the max size loses its bodies and is marked truncated', async () => {
    await session.ok('create', 'configmap', 'big', `--from-literal=k=${'x'.repeat(3000)}`)
    await until(() => named('create', 'big').length > 0, 'the big create')
    const [event] = named('create', 'big')
    assert.equal(event!.level, 'RequestResponse')
    assert.equal(event!.requestObject, undefined)
    assert.equal(event!.responseObject, undefined)
    assert.equal(event!.annotations?.['audit.k8s.io/truncated'], 'true')
    assert.equal(event!.responseStatus?.code, 201)
  })

  it('an event still too large without its bodies is dropped and counted (plugin "truncate"); every batch is within the max batch size', async () => {
    const longName = 'n'.repeat(5000)
    const r = await session.run('get', 'configmaps', `--field-selector=metadata.name=${longName}`)
    assert.equal(r.code, 0, r.stderr)
    await session.ok('create', 'configmap', 'after', '--from-literal=k=v')
    await until(() => named('create', 'after').length > 0, 'the create after the list')
    assert.deepEqual(received().filter((e) => e.requestURI.includes(longName)), [])
    const metrics = await session.ok('get', '--raw', '/metrics')
    assert.match(metrics, /^apiserver_audit_error_total\{plugin="truncate"\} 1$/m)
    assert.match(session.server.logs, /Error in audit plugin 'truncate' affecting 1 audit events: event is too large even after truncating/)
    for (const d of receiver.deliveries) {
      const size = (d.body.items as Obj[]).reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0)
      assert.ok(size <= 8000, `a batch of ${size} bytes of events, over --audit-webhook-truncate-max-batch-size`)
    }
  })
})

describe(`audit webhook blocking-strict end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let receiver: Receiver
  let session: KubectlSession
  let dir: string

  before(async function () {
    const pki = await makePki()
    receiver = new Receiver(pki)
    await receiver.listen()
    dir = mkdtempSync(join(tmpdir(), 'audit-webhook-strict-e2e-'))
    const kubeconfig = join(dir, 'audit-webhook.kubeconfig')
    writeFileSync(kubeconfig, JSON.stringify({ clusters: [{ cluster: { server: receiver.url, 'certificate-authority-data': Buffer.from(pki.caCert).toString('base64') } }] }))
    const policy = join(dir, 'policy.yaml')
    // Every stage of config maps, RequestReceived included.
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["configmaps"]}]\n- level: None\n')
    session = await KubectlSession.open(this, 'audit-webhook-strict-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      args: [`--audit-policy-file=${policy}`, `--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-mode=blocking-strict', '--audit-webhook-initial-backoff=100ms'],
    })
  })
  after(async () => {
    await session?.close()
    await receiver?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const received = (): Obj[] => receiver.deliveries.flatMap((d) => d.body.items as Obj[])

  it('the request waits for its events: by the time kubectl is answered, the receiver has the RequestReceived event', async () => {
    await session.ok('create', 'configmap', 'strict', '--from-literal=k=v')
    const creates = received().filter((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps')
    // ResponseComplete goes once the answer is sent, so it may or may not be there yet.
    assert.equal(creates.filter((e) => e.stage === 'RequestReceived').length, 1, 'RequestReceived delivered before the request went on')
    assert.ok(receiver.deliveries.every((d) => d.body.items.length === 1), 'no batching: one event per POST')
  })

  it('with the receiver down, a request whose RequestReceived event is not taken fails and changes nothing', async () => {
    await receiver.close()
    const r = await session.run('create', 'configmap', 'refused', '--from-literal=k=v')
    assert.equal(r.code, 1)
    // The reference's InternalError text (no Status), as client-go words a 500 without one.
    assert.match(r.stderr, /^error: failed to create configmap: an error on the server \("Internal Server Error: \\"\/api\/v1\/namespaces\/default\/configmaps\?[^"]*\\": failed to store audit event"\) has prevented the request from succeeding \(post configmaps\)\n$/)
    await receiver.listen(receiver.port)
    const get = await session.run('get', 'configmap', 'refused')
    assert.equal(get.stderr, 'Error from server (NotFound): configmaps "refused" not found\n')
    assert.match(await session.ok('get', '--raw', '/metrics'), /^apiserver_audit_requests_rejected_total 1$/m)
  })
})

describe(`audit webhook full buffer end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let receiver: Receiver
  let session: KubectlSession
  let dir: string

  before(async function () {
    const pki = await makePki()
    receiver = new Receiver(pki)
    receiver.answer = () => true // takes the POST and never answers
    await receiver.listen()
    dir = mkdtempSync(join(tmpdir(), 'audit-webhook-full-e2e-'))
    const kubeconfig = join(dir, 'audit-webhook.kubeconfig')
    writeFileSync(kubeconfig, JSON.stringify({ clusters: [{ cluster: { server: receiver.url, 'certificate-authority-data': Buffer.from(pki.caCert).toString('base64') } }] }))
    const policy = join(dir, 'policy.yaml')
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: ["configmaps"]}]\n- level: None\n')
    session = await KubectlSession.open(this, 'audit-webhook-full-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      // One event a batch, one batch under way (burst 1) and the next only after 100 s, a buffer of 1.
      args: [
        `--audit-policy-file=${policy}`,
        `--audit-webhook-config-file=${kubeconfig}`,
        '--audit-webhook-initial-backoff=100ms',
        '--audit-webhook-batch-max-size=1',
        '--audit-webhook-batch-buffer-size=1',
        '--audit-webhook-batch-throttle-qps=0.01',
        '--audit-webhook-batch-throttle-burst=1',
      ],
    })
  })
  after(async () => {
    // Shutdown waits for the throttle (as the reference's worker does) until the harness kills the server.
    await receiver?.close()
    await session?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('requests go on while the receiver holds its batch; events past the buffer are dropped, counted and logged', async () => {
    for (const name of ['full-1', 'full-2', 'full-3', 'full-4']) await session.ok('create', 'configmap', name, '--from-literal=k=v')
    assert.equal(receiver.deliveries.length, 1, 'one batch under way, still unanswered')
    const metrics = await session.ok('get', '--raw', '/metrics')
    const dropped = Number(/^apiserver_audit_error_total\{plugin="buffered"\} (\d+)$/m.exec(metrics)?.[1] ?? 0)
    const events = Number(/^apiserver_audit_event_total (\d+)$/m.exec(metrics)?.[1] ?? 0)
    // Eight events (two stages of four creates), at most three held: under way, waiting for the throttle, buffered.
    assert.ok(events >= 8, `${events} events`)
    assert.equal(dropped, events - 3, `${dropped} of ${events} events dropped`)
    assert.match(session.server.logs, /Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked/)
  })
})

