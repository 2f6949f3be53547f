import assert from 'node:assert/strict'
import { Agent, request } from 'node:https'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiServer, type Reply } from '../../support/api-server.js'
import { handshake, makeCa, makeLeaf, peerCn, tmpDir, writePair } from '../tls/helpers.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('server: serving (end to end)', function () {
  this.timeout(90_000)

  it('SNI: explicit names, names from the certificate, and the default certificate', async () => {
    const dir = tmpDir()
    const ca = await makeCa()
    const exact = writePair(dir, 'exact', ...Object.values(await makeLeaf(ca, { cn: 'exact', dns: ['a.example.com'] })) as [string, string])
    const wildcard = writePair(dir, 'wild', ...Object.values(await makeLeaf(ca, { cn: 'wild', dns: ['*.example.com'] })) as [string, string])
    const pinned = writePair(dir, 'pinned', ...Object.values(await makeLeaf(ca, { cn: 'pinned', dns: ['other.test'] })) as [string, string])
    const server = await ApiServer.start({
      waitFor: 'listening',
      args: [
        `--tls-sni-cert-key=${exact.certFile},${exact.keyFile}`,
        `--tls-sni-cert-key=${wildcard.certFile},${wildcard.keyFile}`,
        `--tls-sni-cert-key=${pinned.certFile},${pinned.keyFile}:b.example.com`,
      ],
    })
    try {
      const at = { host: '127.0.0.1', port: server.port }
      assert.equal(peerCn(await handshake(at, { servername: 'a.example.com' })), 'exact', 'exact beats wildcard')
      assert.equal(peerCn(await handshake(at, { servername: 'c.example.com' })), 'wild')
      assert.equal(peerCn(await handshake(at, { servername: 'b.example.com' })), 'pinned', 'an explicit pattern beats the wildcard from a certificate')
      const fallback = await handshake(at, { servername: 'unknown.test' })
      assert.ok(fallback.ok)
      assert.notEqual(peerCn(fallback), 'exact')
      assert.notEqual(peerCn(fallback), 'wild')
    } finally {
      await server.stop()
    }
  })

  it('restricts cipher suites, and refuses a suite the TLS library cannot honour', async () => {
    const server = await ApiServer.start({ waitFor: 'listening', args: ['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] })
    try {
      const at = { host: '127.0.0.1', port: server.port }
      const ok = await handshake(at, { maxVersion: 'TLSv1.2' })
      assert.ok(ok.ok)
      assert.equal(ok.cipher.name, 'ECDHE-RSA-AES128-GCM-SHA256')
      const refused = await handshake(at, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' })
      assert.equal(refused.ok, false)
    } finally {
      await server.stop()
    }
    const { startExpectingFailure } = await import('../../support/api-server.js')
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--cert-dir=${tmpDir()}`, `--data-dir=${tmpDir()}`, '--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'])
    assert.equal(code, 1)
    assert.match(output, /TLS_RSA_WITH_RC4_128_SHA cannot be honoured/)
  })

  it('HSTS and CORS (with a preflight) when configured', async () => {
    const server = await ApiServer.start({
      waitFor: 'listening',
      args: ['--strict-transport-security-directives=max-age=31536000,includeSubDomains', '--cors-allowed-origins=//example\\.com(:|$)'],
    })
    try {
      const plain = await server.get('/version')
      assert.equal(plain.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
      assert.equal(plain.headers['access-control-allow-origin'], undefined)
      const cors = await server.get('/version', { Origin: 'https://example.com' })
      assert.equal(cors.headers['access-control-allow-origin'], 'https://example.com')
      assert.equal(cors.headers['access-control-allow-credentials'], 'true')
      const preflight = await server.get('/version', { Origin: 'https://example.com', 'Access-Control-Request-Method': 'GET' }, 'OPTIONS')
      assert.equal(preflight.status, 204)
      assert.match(String(preflight.headers['access-control-allow-methods']), /PATCH/)
      const other = await server.get('/version', { Origin: 'https://evil.example.org' })
      assert.equal(other.headers['access-control-allow-origin'], undefined)
    } finally {
      await server.stop()
    }
  })

  it('shutdown with send-retry-after: exempt prefixes, the server\'s own user agent, and keep-alive connections closed after the 429', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--shutdown-delay-duration=1s', '--shutdown-send-retry-after'] })
    try {
      const slow = server.get('/debug/pprof/profile?seconds=4')
      await sleep(200)
      server.signal('SIGTERM')
      await sleep(1500)
      const foo = await server.get('/readyzfoo')
      assert.equal(foo.status, 404, 'exempt by prefix, then not found')
      assert.equal(foo.headers['retry-after'], undefined)
      assert.equal((await server.get('/metrics')).status, 200)
      const own = await server.get('/version', { 'User-Agent': 'kube-apiserver/v1.35.0 (linux/amd64) kubernetes/abc' })
      assert.equal(own.status, 200)
      // Two requests on one keep-alive connection: a 429, then the server closes it.
      const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false })
      const sockets = new Set<unknown>()
      const viaAgent = () =>
        new Promise<Reply>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: server.port, path: '/version', agent }, (res) => {
            sockets.add(res.socket)
            let body = ''
            res.on('data', (d) => (body += d))
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
          })
          req.on('error', reject)
          req.end()
        })
      const first = await viaAgent()
      assert.equal(first.status, 429)
      assert.equal(first.headers.connection, 'close')
      const second = await viaAgent()
      assert.equal(second.status, 429)
      assert.equal(sockets.size, 2, 'the second request needed a new connection')
      agent.destroy()
      assert.equal((await slow).status, 200)
      assert.equal(await server.waitForExit(15_000), 0)
    } finally {
      await server.stop()
    }
  })

  it('metrics report health checks and storage', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--store-count-metric-poll-period=500ms', '--store-db-metric-poll-interval=500ms'] })
    try {
      await server.get('/readyz')
      await sleep(1200)
      const body = (await server.get('/metrics')).body
      assert.match(body, /kubernetes_healthcheck\{name="store",type="readyz"\} 1/)
      assert.match(body, /apiserver_resource_objects\{group="",resource="namespaces"\} 4/)
      // Deprecated in 1.34 (the reference's storage metrics), so hidden in 1.35.
      assert.doesNotMatch(body, /^apiserver_storage_objects/m)
      assert.match(body, /apiserver_storage_size_bytes\{storage_cluster_id="sqlite"\} [1-9]\d*/)
    } finally {
      await server.stop()
    }
  })

  it('--external-hostname: the issuer publishes its key set at https://<external host>:<secure port>', async () => {
    const server = await ApiServer.start({ waitFor: 'ready', args: ['--external-hostname=api.example.com'] })
    try {
      const config = JSON.parse((await server.get('/.well-known/openid-configuration')).body) as { jwks_uri: string }
      assert.equal(config.jwks_uri, `https://api.example.com:${server.port}/openid/v1/jwks`)
    } finally {
      await server.stop()
    }
    const withPort = await ApiServer.start({ waitFor: 'ready', args: ['--external-hostname=api.example.com:8443'] })
    try {
      const config = JSON.parse((await withPort.get('/.well-known/openid-configuration')).body) as { jwks_uri: string }
      assert.equal(config.jwks_uri, 'https://api.example.com:8443/openid/v1/jwks')
      assert.doesNotMatch(withPort.logs, /external host was not specified/)
    } finally {
      await withPort.stop()
    }
  })

  it('metrics obey --show-hidden-metrics-for-version, --disabled-metrics and the allow-list manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'metric-policy-'))
    const manifest = join(dir, 'allow.yaml')
    writeFileSync(manifest, 'apiserver_resource_objects,resource: "namespaces,configmaps"\n')
    const server = await ApiServer.start({
      waitFor: 'ready',
      args: [
        '--store-count-metric-poll-period=500ms',
        '--show-hidden-metrics-for-version=1.34',
        '--disabled-metrics=apiserver_storage_size_bytes',
        `--allow-metric-labels-manifest=${manifest}`,
      ],
    })
    try {
      await sleep(1200)
      const body = (await server.get('/metrics')).body
      assert.match(body, /^# HELP apiserver_storage_objects \[STABLE\] \(Deprecated since 1\.34\.0\) \[DEPRECATED, consider using apiserver_resource_objects instead\] Number of stored objects/m)
      assert.match(body, /^apiserver_storage_objects\{resource="namespaces"\} 4$/m)
      assert.doesNotMatch(body, /^apiserver_storage_size_bytes/m)
      assert.match(body, /^disabled_metrics_total 1$/m)
      assert.match(body, /^apiserver_resource_objects\{group="",resource="namespaces"\} 4$/m)
      // Cluster roles and the other bootstrap resources are outside the allow-list.
      assert.match(body, /^apiserver_resource_objects\{group="rbac.authorization.k8s.io",resource="unexpected"\} [1-9]\d*$/m)
      assert.doesNotMatch(body, /resource="clusterroles"/)
    } finally {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
