/**
 * --egress-selector-config-file end to end with the built binary and the real kubectl: with
 * the `cluster` selection sent through an HTTP CONNECT proxy (TCP, then a Unix socket) or a
 * konnectivity server (GRPC over a Unix socket), an admission webhook call goes through the
 * proxy, which is asked for the webhook's address; a proxy that refuses fails the call (with
 * the reference's words for CONNECT); a file the reference refuses stops the start-up with its
 * text.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdmissionWebhookServer } from '../../support/admission-webhook.js'
import { startExpectingFailure } from '../../support/api-server.js'
import { ConnectProxy } from '../../support/connect-proxy.js'
import { KonnectivityServer } from '../../support/konnectivity-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'

const configFile = (dir: string, name: string, selections: string): string => {
  const file = join(dir, name)
  writeFileSync(file, `apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n${selections}`)
  return file
}

/** A test proxy as the tests below use it: what it was asked to reach, and refusing. */
interface TestProxy {
  seen(): string[]
  refuse(why: string | undefined): void
  close(): Promise<void>
}

for (const transport of ['tcp', 'uds', 'grpc'] as const) {
  const protocol = transport === 'grpc' ? 'GRPC' : 'HTTPConnect'
  describe(`egress: the cluster selection through ${transport === 'grpc' ? 'a konnectivity server (GRPC) over uds' : `an HTTP CONNECT proxy over ${transport}`}`, function () {
    this.timeout(120_000)
    let dir: string
    let proxy: TestProxy
    let via: string
    let webhook: AdmissionWebhookServer
    let session: KubectlSession

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'egress-'))
      const socket = join(dir, 'proxy.sock')
      if (transport === 'grpc') {
        const server = await KonnectivityServer.start(socket)
        proxy = { seen: () => server.dialed, refuse: (why) => (server.refuse = why), close: () => server.close() }
      } else {
        const server = await ConnectProxy.start(transport === 'uds' ? socket : undefined)
        proxy = { seen: () => server.targets, refuse: (why) => (server.refuse = why), close: () => server.close() }
        via = transport === 'tcp' ? `127.0.0.1:${server.port}` : socket
      }
      webhook = await AdmissionWebhookServer.start()
      const connection = transport === 'tcp' ? `      tcp: {url: "http://${via}"}` : `      uds: {udsName: "${socket}"}`
      const file = configFile(dir, 'egress.yaml', ['- name: cluster', '  connection:', `    proxyProtocol: ${protocol}`, '    transport:', connection, '- name: master', '  connection: {proxyProtocol: Direct}', ''].join('\n'))
      session = await KubectlSession.open(this, 'egress-', { waitFor: 'ready', args: ['--egress-selector-config-file', file] })
    })
    after(async () => {
      await session?.close()
      await webhook?.close()
      await proxy?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('an admission webhook call goes through the proxy, to the webhook\'s address', async () => {
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
      assert.ok(proxy.seen().includes(`127.0.0.1:${webhook.port}`), `the proxy was asked for 127.0.0.1:${webhook.port}; it saw ${JSON.stringify(proxy.seen())}`)
    })

    it('a proxy that refuses the tunnel fails the webhook call', async () => {
      proxy.refuse(transport === 'grpc' ? 'dial tcp: no route to host' : '403 Forbidden')
      try {
        const r = await session.run('create', 'configmap', 'refused', '--from-literal=a=b')
        assert.notEqual(r.code, 0)
        const failed = `failed calling webhook "egress.example.com": failed to call webhook: Post "${webhook.url('/validate')}?timeout=10s": `
        if (transport === 'grpc') assert.ok(r.stderr.includes(failed) && r.stderr.includes('dial tcp: no route to host'), r.stderr)
        // egress_selector.go's tunnelHTTPConnect: "proxy error from %s while dialing %s, code %d: %v" (res.Status).
        else assert.ok(r.stderr.includes(`${failed}proxy error from ${via} while dialing 127.0.0.1:${webhook.port}, code 403: 403 Forbidden`), r.stderr)
      } finally {
        proxy.refuse(undefined)
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
