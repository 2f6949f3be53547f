/**
 * --egress-selector-config-file end to end with the built binary and the real kubectl: with
 * the `cluster` selection sent through an HTTP CONNECT proxy (TCP, then a Unix socket), an
 * admission webhook call goes through the proxy, which sees the webhook's address as its
 * CONNECT target; a proxy that refuses fails the call with the reference's words; a file the
 * reference refuses stops the start-up with its text.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../support/admission-webhook.js'
import { startExpectingFailure } from '../../support/api-server.js'
import { ConnectProxy } from '../../support/connect-proxy.js'
import { KubectlSession } from '../../support/kubectl-session.js'

const configFile = (dir: string, name: string, selections: string): string => {
  const file = join(dir, name)
  writeFileSync(file, `apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n${selections}`)
  return file
}

for (const transport of ['tcp', 'uds'] as const) {
  describe(`egress: the cluster selection through an HTTP CONNECT proxy over ${transport}`, function () {
    this.timeout(120_000)
    let dir: string
    let proxy: ConnectProxy
    let webhook: AdmissionWebhookServer
    let session: KubectlSession

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'egress-'))
      proxy = await ConnectProxy.start(transport === 'uds' ? join(dir, 'proxy.sock') : undefined)
      webhook = await AdmissionWebhookServer.start()
      const connection = transport === 'tcp' ? `      tcp: {url: "${proxy.url}"}` : `      uds: {udsName: "${join(dir, 'proxy.sock')}"}`
      const file = configFile(dir, 'egress.yaml', ['- name: cluster', '  connection:', '    proxyProtocol: HTTPConnect', '    transport:', connection, '- name: master', '  connection: {proxyProtocol: Direct}', ''].join('\n'))
      session = await KubectlSession.open(this, 'egress-', { waitFor: 'ready', args: ['--egress-selector-config-file', file] })
    })
    after(async () => {
      await session?.close()
      await webhook?.close()
      await proxy?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('an admission webhook call goes through the proxy, to the webhook\'s address', async () => {
      assert.doesNotMatch(session.server.logs, /egress-selector-config-file/, 'the option is not named as not in effect')
      const webhookConfig = [
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: ValidatingWebhookConfiguration',
        'metadata: {name: egress.example.com}',
        'webhooks:',
        '- name: egress.example.com',
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
      await session.ok('create', 'configmap', 'through-proxy', '--from-literal=a=b')
      assert.ok(webhook.reviews.some((r) => r.request?.name === 'through-proxy'), 'the webhook saw the request')
      assert.ok(proxy.targets.includes(`127.0.0.1:${webhook.port}`), `the proxy saw CONNECT 127.0.0.1:${webhook.port}; it saw ${JSON.stringify(proxy.targets)}`)
    })

    it('a proxy that refuses the tunnel fails the webhook call with the reference\'s words', async () => {
      proxy.refuse = '403 Forbidden'
      try {
        const r = await session.run('create', 'configmap', 'refused', '--from-literal=a=b')
        assert.notEqual(r.code, 0)
        const via = transport === 'tcp' ? `127.0.0.1:${proxy.port}` : join(dir, 'proxy.sock')
        // egress_selector.go's tunnelHTTPConnect: "proxy error from %s while dialing %s, code %d: %v" (res.Status).
        assert.ok(r.stderr.includes(`failed calling webhook "egress.example.com": failed to call webhook: Post "${webhook.url('/validate')}?timeout=10s": proxy error from ${via} while dialing 127.0.0.1:${webhook.port}, code 403: 403 Forbidden`), r.stderr)
      } finally {
        proxy.refuse = undefined
      }
    })
  })
}

/** A server start on a free port, with its own directories, with `file` as the egress configuration. */
const serverArgs = (dir: string, file: string) => ['--bind-address=127.0.0.1', '--secure-port=1', `--data-dir=${join(dir, 'data')}`, `--cert-dir=${join(dir, 'certs')}`, `--egress-selector-config-file=${file}`]

describe('egress: a configuration file the reference refuses stops the start-up', function () {
  this.timeout(60_000)
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'egress-bad-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('an unknown selection name and a Direct selection with a transport, in the reference\'s words', async () => {
    const file = configFile(dir, 'bad.yaml', ['- name: nodes', '  connection: {proxyProtocol: Direct}', '- name: cluster', '  connection:', '    proxyProtocol: Direct', '    transport: {uds: {udsName: /tmp/x.sock}}', ''].join('\n'))
    const { code, output } = await startExpectingFailure(serverArgs(dir, file))
    assert.equal(code, 1)
    assert.ok(
      output.includes('failed to validate egress selector configuration: [service.connection.transport: Invalid value: "direct": Transport config should be absent for direct connect, service.connection: Unsupported value: "nodes": supported values: "cluster", "controlplane", "etcd"]'),
      output,
    )
  })

  it('a file of another kind', async () => {
    const file = join(dir, 'other.yaml')
    writeFileSync(file, 'apiVersion: apiserver.k8s.io/v1beta1\nkind: TracingConfiguration\n')
    const { code, output } = await startExpectingFailure(serverArgs(dir, file))
    assert.equal(code, 1)
    assert.ok(output.includes('failed to read egress selector config: invalid service configuration object "TracingConfiguration"'), output)
  })
})
