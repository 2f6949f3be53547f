/**
 * --tracing-config-file end to end with the built binary: the server exports its spans over
 * OTLP gRPC to a test receiver on 127.0.0.1. A create of one ConfigMap (by the real kubectl,
 * and by a request carrying a W3C traceparent) gives one trace in which the request span
 * (named as the reference's WithTracing names it) holds the filter spans, the admission
 * phase and plugin spans, the webhook call and the store call, nested; the webhook receives
 * the trace context of its call; the resource is `service.name=apiserver`. A file the
 * reference refuses stops the start-up with its text.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../support/admission-webhook.js'
import { startExpectingFailure } from '../../support/api-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { OtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.js'

/** The span and its ancestors, innermost first, by parent id within its trace. */
function ancestry(spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]))
  const chain = [span]
  for (let p = byId.get(span.parentSpanId); p; p = byId.get(p.parentSpanId)) chain.push(p)
  return chain
}

describe('tracing: the spans of a create, exported over OTLP', function () {
  this.timeout(120_000)
  let dir: string
  let receiver: OtlpReceiver
  let webhook: AdmissionWebhookServer
  let session: KubectlSession

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'tracing-'))
    receiver = await OtlpReceiver.start()
    webhook = await AdmissionWebhookServer.start()
    const file = join(dir, 'tracing.yaml')
    writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: ${receiver.endpoint}\nsamplingRatePerMillion: 1000000\n`)
    session = await KubectlSession.open(this, 'tracing-', { waitFor: 'ready', args: ['--tracing-config-file', file] })
    const webhookConfig = [
      'apiVersion: admissionregistration.k8s.io/v1',
      'kind: ValidatingWebhookConfiguration',
      'metadata: {name: traced.example.com}',
      'webhooks:',
      '- name: traced.example.com',
      `  clientConfig: {url: "${webhook.url('/validate')}", caBundle: "${webhook.caBundle}"}`,
      '  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]',
      '  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: default}}',
      '  failurePolicy: Fail',
      '  sideEffects: None',
      '  admissionReviewVersions: [v1]',
      '',
    ].join('\n')
    await session.ok('apply', '-f', session.file('webhook.yaml', webhookConfig))
    await sleep(400)
  })
  after(async () => {
    await session?.close()
    await webhook?.close()
    await receiver?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** Waits for the spans of one trace: the request span `name` and the store's create under it. */
  async function traceOf(match: (s: ReceivedSpan) => boolean): Promise<{ request: ReceivedSpan; spans: ReceivedSpan[] }> {
    const deadline = Date.now() + 30_000
    for (;;) {
      const request = receiver.spans.find(match)
      const spans = request ? receiver.spans.filter((s) => s.traceId === request.traceId) : []
      if (request && spans.some((s) => s.name === 'Create sqlite') && spans.some((s) => s.name === 'Call validating webhook')) return { request, spans }
      if (Date.now() > deadline) throw new Error(`no complete trace; spans received: ${JSON.stringify(receiver.spans.map((s) => s.name))}\nserver:\n${session.server.logs.slice(-2000)}`)
      await sleep(250)
    }
  }

  it('kubectl create: the request, filter, admission, webhook and store spans, nested in one trace', async () => {
    await session.ok('create', 'configmap', 'traced', '--from-literal=a=b')
    const requestName = 'POST /api/v1/namespaces/{:namespace}/configmaps'
    const { request, spans } = await traceOf((s) => s.name === requestName && s.kind === 2)
    assert.equal(request.resource['service.name'], 'apiserver')
    assert.equal(request.attributes['http.target'], '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict')
    const names = (s: ReceivedSpan) => ancestry(spans, s).map((a) => a.name)
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name)
      assert.equal(found.length, 1, `one ${name} span in ${JSON.stringify(spans.map((s) => s.name))}`)
      return found[0]!
    }
    // The filters nest as the reference's TrackStarted/TrackCompleted pairs leave them.
    assert.deepEqual(names(one('authorization')), ['authorization', 'priorityandfairness', 'impersonation', 'audit', 'authentication', requestName])
    // The handler's span (the reference's create.go opens `Create`) holds admission and the store.
    const handler = names(one('Create'))
    assert.deepEqual(handler.slice(0, 2), ['Create', 'authorization'])
    const store = names(one('Create sqlite'))
    assert.equal(store.at(-1), requestName)
    assert.ok(store.includes('Create'), `the store call is under the handler: ${store.join(' < ')}`)
    const plugin = names(one('validate ValidatingAdmissionWebhook'))
    assert.deepEqual(plugin.slice(0, 2), ['validate ValidatingAdmissionWebhook', 'admission validate'])
    assert.ok(plugin.includes('Create') && plugin.at(-1) === requestName, `admission is under the handler: ${plugin.join(' < ')}`)
    const call = one('Call validating webhook')
    assert.deepEqual(names(call).slice(0, 3), ['Call validating webhook', 'validate ValidatingAdmissionWebhook', 'admission validate'])
    // The webhook got the call's W3C trace context.
    const review = webhook.reviews.find((r) => r.request?.name === 'traced')
    assert.equal(review?.headers.traceparent, `00-${call.traceId}-${call.spanId}-01`)
  })

  it('an incoming traceparent is the request span\'s parent', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
    const parentId = '00f067aa0ba902b7'
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'traced-parent' }, data: { a: 'b' } })
    const reply = await session.server.get('/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json', traceparent: `00-${traceId}-${parentId}-01` }, 'POST', body)
    assert.equal(reply.status, 201, reply.body)
    const { request } = await traceOf((s) => s.traceId === traceId && s.kind === 2)
    assert.equal(request.parentSpanId, parentId)
    assert.equal(request.name, 'POST /api/v1/namespaces/{:namespace}/configmaps')
  })
})

describe('tracing: a configuration file the reference refuses stops the start-up', function () {
  this.timeout(60_000)
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'tracing-bad-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  const start = (file: string) => startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--data-dir=${join(dir, 'data')}`, `--cert-dir=${join(dir, 'certs')}`, `--tracing-config-file=${file}`])

  it('a sampling rate above one million, in the reference\'s words', async () => {
    const file = join(dir, 'rate.yaml')
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nsamplingRatePerMillion: 1000001\n')
    const { code, output } = await start(file)
    assert.equal(code, 1)
    assert.ok(output.includes('failed to validate tracing configuration: samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million'), output)
  })

  it('a file that cannot be read names it', async () => {
    const missing = join(dir, 'missing.yaml')
    const { code, output } = await start(missing)
    assert.equal(code, 1)
    assert.ok(output.includes(`failed to read tracing config: unable to read tracing configuration from ${JSON.stringify(missing)}: open ${missing}: no such file or directory`), output)
  })
})
