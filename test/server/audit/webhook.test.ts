/**
 * The audit webhook backend against a real local HTTPS receiver, after the reference's
 * plugin/pkg/audit/webhook/webhook_test.go (TestWebhook: a kubeconfig with one unnamed cluster
 * skipping TLS verification, an empty event sent as an audit.k8s.io/v1 EventList) and its
 * webhook.go (retryOnError: every failure tried again; five attempts as
 * DefaultRetryBackoffWithInitialDelay: ×1.5, 20 % jitter), with client-go's failure texts and
 * the kubeconfig's TLS settings (CA, client certificate).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AuditEvent } from '../../../src/server/audit/event.js'
import { auditBackendFromConfig } from '../../../src/server/audit/from-config.js'
import type { AuditBackendOptions } from '../../../src/server/audit/mode.js'
import type { AuditWebhookConfig, ServerConfig } from '../../../src/server/config.js'
import type { Logger } from '../../../src/server/log/logger.js'
import { auditMetrics } from '../../../src/server/audit/metrics.js'
import { Registry } from 'prom-client'
import { WebhookBackend, loadAuditWebhook, webhookAuditBackend } from '../../../src/server/audit/webhook.js'
import { StartupError } from '../../../src/server/lifecycle/startup-error.js'
import { type Pki, Receiver, httpError, makePki } from './webhook-receiver.js'

type Obj = Record<string, any>

/** An event as the audit filter makes it. */
function auditEvent(auditID: string, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage: 'RequestReceived',
    requestURI: '/api/v1/namespaces/default/configmaps',
    verb: 'create',
    user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
    sourceIPs: ['127.0.0.1'],
    userAgent: 'kubectl/v1.32.0',
    objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
    requestReceivedTimestamp: '2026-12-07T15:00:00.123000Z',
    stageTimestamp: '2026-12-07T15:00:00.123000Z',
    ...extra,
  }
}

describe('audit webhook backend', function () {
  this.timeout(20_000)
  let pki: Pki
  let dir: string
  const receivers: Receiver[] = []

  before(async () => {
    pki = await makePki()
  })
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-webhook-'))
  })
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()))
    rmSync(dir, { recursive: true, force: true })
  })

  async function receiver(requireClientCert = false): Promise<Receiver> {
    const r = new Receiver(pki, requireClientCert)
    receivers.push(r)
    await r.listen()
    return r
  }

  /** The reference test's kubeconfig: one unnamed cluster, no context, TLS not verified. */
  function insecureKubeconfig(server: string): string {
    const file = join(dir, 'kubeconfig.json')
    writeFileSync(file, JSON.stringify({ clusters: [{ cluster: { server, 'insecure-skip-tls-verify': true } }] }))
    return file
  }

  function kubeconfigYaml(server: string, ca: string, client?: { cert: string; key: string }): string {
    const file = join(dir, 'kubeconfig.yaml')
    const b64 = (pem: string) => Buffer.from(pem).toString('base64')
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: audit',
        '  cluster:',
        `    server: ${server}`,
        `    certificate-authority-data: ${b64(ca)}`,
        'users:',
        '- name: apiserver',
        '  user:',
        ...(client ? [`    client-certificate-data: ${b64(client.cert)}`, `    client-key-data: ${b64(client.key)}`] : ['    {}']),
        'contexts:',
        '- name: audit',
        '  context: {cluster: audit, user: apiserver}',
        'current-context: audit',
        '',
      ].join('\n'),
    )
    return file
  }

  /** Errors reported as audit.HandlePluginError would. */
  function errorRecorder() {
    const errors: { plugin: string; error: string; auditIDs: string[] }[] = []
    return { errors, onError: (plugin: string, error: string, impacted: readonly AuditEvent[]) => errors.push({ plugin, error, auditIDs: impacted.map((e) => e.auditID) }) }
  }

  it('sends an event as an audit.k8s.io/v1 EventList (TestWebhook)', async () => {
    const r = await receiver()
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(r.url), 500))
    // The reference sends an empty internal Event: it must still encode.
    assert.equal(await backend.processEvents({} as AuditEvent), true)
    assert.equal(r.deliveries.length, 1)
    const { body } = r.deliveries[0]!
    assert.equal(body.kind, 'EventList')
    assert.equal(body.apiVersion, 'audit.k8s.io/v1')
    assert.equal(body.items.length, 1)
  })

  it('POSTs JSON to the server URL of the kubeconfig; the items are the events without their TypeMeta, as the reference converts them', async () => {
    const r = await receiver()
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(`${r.url}/audit/events`), 500))
    const a = auditEvent('a', { annotations: { 'authorization.k8s.io/decision': 'allow' } })
    const b = auditEvent('b', { stage: 'ResponseComplete', responseStatus: { metadata: {}, code: 201 } })
    assert.equal(await backend.processEvents(a, b), true)
    const [delivery] = r.deliveries
    assert.equal(delivery!.method, 'POST')
    assert.equal(delivery!.path, '/audit/events')
    assert.equal(delivery!.contentType, 'application/json')
    const { kind: _k, apiVersion: _v, ...aItem } = a
    const { kind: _k2, apiVersion: _v2, ...bItem } = b
    assert.deepEqual(delivery!.body, { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: [aItem, bItem] })
  })

  it('sends the events as they were at the call: the caller reuses them for the next stage at once', async () => {
    const r = await receiver()
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(r.url), 500))
    const event = auditEvent('reused')
    const sent = backend.processEvents(event)
    event.stage = 'ResponseComplete'
    event.responseStatus = { metadata: {}, code: 200 }
    assert.equal(await sent, true)
    assert.equal(r.deliveries[0]!.body.items[0].stage, 'RequestReceived')
    assert.equal(r.deliveries[0]!.body.items[0].responseStatus, undefined)
  })

  it('tries again on any failure, a 400 too (retryOnError), until the receiver takes the batch', async () => {
    const r = await receiver()
    r.answer = (n, res) => (n < 2 ? httpError(res, 400, 'bad request') : false)
    const { errors, onError } = errorRecorder()
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(r.url), 20), onError)
    assert.equal(await backend.processEvents(auditEvent('x')), true)
    assert.equal(r.deliveries.length, 3)
    assert.deepEqual(r.deliveries[2]!.body, r.deliveries[0]!.body)
    assert.deepEqual(errors, [])
  })

  it('gives up after five attempts, pausing at least the initial backoff ×1.5 between them, and reports the events with the last error', async () => {
    const r = await receiver()
    r.answer = (_n, res) => httpError(res, 500, 'HTTP Error')
    const { errors, onError } = errorRecorder()
    const initial = 100
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(r.url), initial), onError)
    assert.equal(await backend.processEvents(auditEvent('p'), auditEvent('q')), false)
    assert.equal(r.deliveries.length, 5)
    const gaps = r.deliveries.slice(1).map((d, i) => d.at - r.deliveries[i]!.at)
    // Not before each pause (load only makes them longer; the 20 % jitter only adds).
    gaps.forEach((gap, i) => {
      const pause = initial * 1.5 ** i
      assert.ok(gap >= pause - 5, `pause ${i + 1}: ${gap} ms, at least ${pause} ms`)
    })
    // client-go's NewGenericServerResponse for a 500 whose text is no Status.
    assert.deepEqual(errors, [{ plugin: 'webhook', error: 'an error on the server ("HTTP Error") has prevented the request from succeeding', auditIDs: ['p', 'q'] }])
  })

  it('a receiver that is not there: Go\'s dial error, after every attempt', async () => {
    const r = await receiver()
    const url = r.url
    const port = r.port
    await r.close()
    const { errors, onError } = errorRecorder()
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(url), 5), onError)
    assert.equal(await backend.processEvents(auditEvent('lost')), false)
    assert.deepEqual(errors, [{ plugin: 'webhook', error: `Post "${url}/": dial tcp 127.0.0.1:${port}: connect: connection refused`, auditIDs: ['lost'] }])
  })

  it('a receiver down for a while, then up: the retries deliver the batch once', async () => {
    const r = await receiver()
    const port = r.port
    await r.close()
    const { errors, onError } = errorRecorder()
    // Attempts at about 0, 100, 250, 475 and 810 ms: the receiver is back at 300 ms.
    const backend = new WebhookBackend(loadAuditWebhook(insecureKubeconfig(r.url), 100), onError)
    const sent = backend.processEvents(auditEvent('late'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    await r.listen(port)
    assert.equal(await sent, true)
    assert.deepEqual(r.deliveries.map((d) => d.body.items.map((e: Obj) => e.auditID)), [['late']])
    assert.deepEqual(errors, [])
  })

  it('verifies the receiver with the kubeconfig\'s CA and presents its client certificate', async () => {
    const r = await receiver(true)
    const backend = new WebhookBackend(loadAuditWebhook(kubeconfigYaml(r.url, pki.caCert, { cert: pki.clientCert, key: pki.clientKey }), 5))
    assert.equal(await backend.processEvents(auditEvent('tls')), true)
    assert.equal(r.deliveries.length, 1)
  })

  it('a receiver whose certificate the CA did not sign: Go\'s unknown-authority error', async () => {
    const r = await receiver()
    const { errors, onError } = errorRecorder()
    const backend = new WebhookBackend(loadAuditWebhook(kubeconfigYaml(r.url, pki.otherCaCert), 5), onError)
    assert.equal(await backend.processEvents(auditEvent('untrusted')), false)
    assert.equal(r.deliveries.length, 0)
    assert.deepEqual(errors, [{ plugin: 'webhook', error: `Post "${r.url}/": tls: failed to verify certificate: x509: certificate signed by unknown authority`, auditIDs: ['untrusted'] }])
  })

  it('a kubeconfig that cannot be used stops start-up: "initializing audit webhook: " and client-go\'s words', () => {
    const missing = join(dir, 'missing.yaml')
    assert.throws(() => loadAuditWebhook(missing, 10_000), (err: Error) => err instanceof StartupError && err.message === `initializing audit webhook: stat ${missing}: no such file or directory`)
    const empty = join(dir, 'empty.yaml')
    writeFileSync(empty, 'apiVersion: v1\nkind: Config\n')
    assert.throws(
      () => loadAuditWebhook(empty, 10_000),
      (err: Error) => err instanceof StartupError && err.message === 'initializing audit webhook: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    )
  })

  describe('in its modes (--audit-webhook-mode, -batch-*, -truncate-*)', () => {
    /** The reference's webhook batch defaults (options/audit.go), with a short wait and no throttle unless a test sets one. */
    function options(extra: Omit<Partial<AuditBackendOptions>, 'batch'> & { batch?: Partial<AuditBackendOptions['batch']> } = {}): AuditBackendOptions {
      return { mode: 'batch', ...extra, batch: { bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 50, asyncDelegate: false, ...extra.batch } }
    }
    const ids = (r: Receiver) => r.deliveries.map((d) => d.body.items.map((e: Obj) => e.auditID))
    const events = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => auditEvent(`${prefix}${i}`))

    it('batch: events go in EventLists of at most the max size, a partial one after the wait, the rest at shutdown', async () => {
      const r = await receiver()
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 100, options({ batch: { maxBatchSize: 3, maxBatchWaitMs: 200 } }))
      backend.run()
      assert.equal(backend.processEvents(...events('a', 7)), true, 'batch mode answers at once')
      while (r.deliveries.length < 2) await sleep(5)
      assert.deepEqual(ids(r), [['a0', 'a1', 'a2'], ['a3', 'a4', 'a5']])
      while (r.deliveries.length < 3) await sleep(5)
      assert.deepEqual(ids(r)[2], ['a6'])
      backend.processEvents(...events('b', 2))
      await backend.shutdown()
      assert.deepEqual(ids(r).slice(3), [['b0', 'b1']], 'shutdown delivers what is buffered')
      for (const d of r.deliveries) assert.equal(d.body.kind, 'EventList')
    })

    it('batch: a receiver that never answers holds no request, and past the buffer events are dropped and reported (plugin "buffered")', async () => {
      const r = await receiver()
      r.answer = () => true // never answers
      const { errors, onError } = errorRecorder()
      // One batch of 2 may go (burst 1), the next waits for the throttle; the buffer holds 4.
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 5, options({ batch: { bufferSize: 4, maxBatchSize: 2, throttle: { qps: 0.01, burst: 1 } } }), onError)
      backend.run()
      assert.equal(backend.processEvents(...events('first', 2)), true)
      while (r.deliveries.length < 1) await sleep(5)
      const answer = backend.processEvents(...events('e', 10))
      assert.equal(answer, true, 'no promise: the request goes on at once')
      assert.deepEqual(errors, [{ plugin: 'buffered', error: 'audit buffer queue blocked', auditIDs: ['e4', 'e5', 'e6', 'e7', 'e8', 'e9'] }])
      assert.deepEqual(ids(r), [['first0', 'first1']], 'the batch under way is still unanswered')
    })

    it('batch: a receiver down for a while, then up: every buffered event arrives (retries), none reported', async () => {
      const r = await receiver()
      const port = r.port
      await r.close()
      const { errors, onError } = errorRecorder()
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 100, options({ batch: { maxBatchSize: 4, maxBatchWaitMs: 20 } }), onError)
      backend.run()
      for (let i = 0; i < 10; i++) backend.processEvents(auditEvent(`d${i}`))
      await sleep(300)
      await r.listen(port)
      await backend.shutdown()
      assert.deepEqual(ids(r).flat().sort(), events('d', 10).map((e) => e.auditID).sort())
      assert.deepEqual(errors, [])
    })

    it('blocking: the request waits for the receiver, and goes on even when every attempt failed', async () => {
      const r = await receiver()
      r.answer = (_n, res) => httpError(res, 503, 'unavailable')
      const { errors, onError } = errorRecorder()
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 5, options({ mode: 'blocking' }), onError)
      const answer = backend.processEvents(auditEvent('blocked'))
      assert.ok(answer instanceof Promise, 'blocking mode waits')
      assert.equal(await answer, true)
      assert.equal(r.deliveries.length, 5)
      assert.deepEqual(errors, [{ plugin: 'webhook', error: 'the server is currently unable to handle the request', auditIDs: ['blocked'] }])
    })

    it('blocking-strict: a batch the receiver never took is refused (the request then fails)', async () => {
      const r = await receiver()
      r.answer = (n, res) => (n === 0 ? false : httpError(res, 500, 'HTTP Error'))
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 5, options({ mode: 'blocking-strict' }))
      assert.equal(await backend.processEvents(auditEvent('ok')), true)
      assert.equal(await backend.processEvents(auditEvent('refused')), false)
    })

    it('truncation: an event over the max size loses its bodies first, then is dropped (plugin "truncate"); batches are split by size', async () => {
      const r = await receiver()
      const { errors, onError } = errorRecorder()
      const truncate = { maxEventSize: 1000, maxBatchSize: 1500 }
      const backend = webhookAuditBackend(insecureKubeconfig(r.url), 5, options({ mode: 'blocking', truncate }), onError)
      const body = { kind: 'ConfigMap', apiVersion: 'v1', data: { big: 'x'.repeat(2000) } }
      const bodies = auditEvent('bodies', { level: 'RequestResponse', requestObject: body, responseObject: body })
      const huge = auditEvent('huge', { annotations: { note: 'y'.repeat(2000) } })
      await backend.processEvents(bodies, huge, auditEvent('small1'), auditEvent('small2'))
      const items = r.deliveries.flatMap((d) => d.body.items) as Obj[]
      assert.deepEqual(items.map((e) => e.auditID), ['bodies', 'small1', 'small2'])
      assert.equal(items[0]!.requestObject, undefined)
      assert.equal(items[0]!.responseObject, undefined)
      assert.equal(items[0]!.annotations['audit.k8s.io/truncated'], 'true')
      assert.ok(r.deliveries.length >= 2, 'three events of about 500 bytes do not fit in one batch of 1500')
      for (const d of r.deliveries) assert.ok(d.body.items.reduce((n: number, e: Obj) => n + JSON.stringify(e).length, 0) <= truncate.maxBatchSize)
      assert.deepEqual(errors, [{ plugin: 'truncate', error: 'event is too large even after truncating', auditIDs: ['huge'] }])
    })
  })

  describe('as the AUDIT_BACKENDS line (--audit-webhook-*)', () => {
    /** The reference's webhook defaults (options/audit.go), as the server configuration holds them. */
    function webhookConfig(extra: Partial<AuditWebhookConfig> = {}): AuditWebhookConfig {
      return {
        mode: 'batch',
        version: 'audit.k8s.io/v1',
        batchBufferSize: 10_000,
        batchMaxSize: 400,
        batchMaxWaitMs: 30_000,
        batchThrottleEnable: true,
        batchThrottleQps: 10,
        batchThrottleBurst: 15,
        truncateEnabled: false,
        truncateMaxBatchSize: 10_485_760,
        truncateMaxEventSize: 102_400,
        initialBackoffMs: 10_000,
        ...extra,
      }
    }
    function logger() {
      const errors: string[] = []
      return { errors, log: { error: (message: string) => errors.push(message) } as unknown as Logger }
    }
    const deps = (auditWebhook: AuditWebhookConfig, log: Logger, registry = new Registry()) => ({ config: { auditWebhook } as ServerConfig, log, metrics: auditMetrics(registry, log) })

    it('is off without --audit-webhook-config-file', () => {
      assert.equal(auditBackendFromConfig(deps(webhookConfig(), logger().log)), undefined)
    })

    it('with the file: the webhook backend in batch mode; shutdown delivers the buffered events', async () => {
      const r = await receiver()
      const backend = auditBackendFromConfig(deps(webhookConfig({ configFile: insecureKubeconfig(r.url) }), logger().log))!
      assert.equal(backend.name, 'webhook')
      backend.run()
      assert.equal(backend.processEvents(auditEvent('one'), auditEvent('two')), true)
      await sleep(50)
      assert.equal(r.deliveries.length, 0, 'a partial batch waits for --audit-webhook-batch-max-wait (30s)')
      await backend.shutdown()
      assert.deepEqual(r.deliveries.map((d) => d.body.items.map((e: Obj) => e.auditID)), [['one', 'two']])
    })

    it('undelivered events are counted in apiserver_audit_error_total{plugin="webhook"} and logged as HandlePluginError logs them', async () => {
      const r = await receiver()
      r.answer = (_n, res) => httpError(res, 500, 'HTTP Error')
      const { errors, log } = logger()
      const registry = new Registry()
      const backend = auditBackendFromConfig(deps(webhookConfig({ configFile: insecureKubeconfig(r.url), mode: 'blocking', initialBackoffMs: 5 }), log, registry))!
      assert.equal(await backend.processEvents(auditEvent('gone'), auditEvent('lost')), true)
      assert.match(await registry.metrics(), /^apiserver_audit_error_total\{plugin="webhook"\} 2$/m)
      assert.equal(errors.length, 1)
      const [head, impacted, ...events] = errors[0]!.trimEnd().split('\n')
      assert.equal(head, `Error in audit plugin 'webhook' affecting 2 audit events: an error on the server ("HTTP Error") has prevented the request from succeeding`)
      assert.equal(impacted, 'Impacted events:')
      assert.deepEqual(events.map((line) => /AUDIT: id="(\w+)" stage="(\w+)"/.exec(line)?.slice(1)), [['gone', 'RequestReceived'], ['lost', 'RequestReceived']])
    })

    it('stops start-up on a kubeconfig it cannot use, or batch options the reference refuses', () => {
      const missing = join(dir, 'missing')
      assert.throws(() => auditBackendFromConfig(deps(webhookConfig({ configFile: missing }), logger().log)), (err: Error) => err instanceof StartupError && err.message === `initializing audit webhook: stat ${missing}: no such file or directory`)
      const file = insecureKubeconfig('https://127.0.0.1:1')
      assert.throws(
        () => auditBackendFromConfig(deps(webhookConfig({ configFile: file, batchMaxSize: 0 }), logger().log)),
        (err: Error) => err instanceof StartupError && err.message === 'invalid audit batch webhook max batch size 0, must be a positive number',
      )
    })
  })
})
