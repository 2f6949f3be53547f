/**
 * The aggregation layer end to end with the real kubectl 1.35: local APIServices for the built-in
 * group versions; an APIService for a small HTTPS extension server on loopback (a Service and the
 * Endpoints naming it, --enable-aggregator-routing) becomes Available, its group version is
 * proxied with the user in the front-proxy headers over the proxy client certificate, and
 * discovery lists its resources. Expected texts are the reference's (kube-aggregator's
 * availability controller and apimachinery's UpgradeAwareHandler).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer as createHttpsServer, type Server } from 'node:https'
import type { TLSSocket } from 'node:tls'
import { join } from 'node:path'
import { WebSocket, WebSocketServer } from 'ws'
import { DAY_MS, HOUR_MS, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'
import { freePorts } from '../../support/etcd.js'
import { crontabCrd } from '../../support/crontab-crd.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { makeCa, makeClientCert } from '../authentication/helpers.js'

const GROUP = 'wardle.example.com'
const VERSION = 'v1alpha1'
const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${GROUP}/${VERSION}`,
  resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch', 'create'], shortNames: ['fl'] }],
}

const OPENAPI_V3 = { openapi: '3.0.0', info: { title: 'wardle', version: 'v0' }, paths: { [`/apis/${GROUP}/${VERSION}/`]: { get: { operationId: 'getWardleAPIResources' } } }, components: { schemas: {} } }

interface Seen {
  path: string
  headers: IncomingHttpHeaders
  clientCn: string | undefined
}

/** The extension server: its discovery, a list of flunders, a redirect, and every request recorded. */
async function extensionServer(tls: { cert: string; key: string; clientCa: string }, seen: Seen[]): Promise<{ server: Server; port: number }> {
  const server = createHttpsServer({ cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate()
    seen.push({ path: req.url ?? '', headers: req.headers, clientCn: peer && 'subject' in peer ? [peer.subject?.CN ?? []].flat()[0] : undefined })
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const path = (req.url ?? '').split('?')[0]
    if (path === `/apis/${GROUP}/${VERSION}`) return json(200, RESOURCE_LIST)
    if (path === '/apis') return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: GROUP, versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${GROUP}/${VERSION}`, version: VERSION } }] })
    if (path === `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`) return json(200, { kind: 'FlunderList', apiVersion: `${GROUP}/${VERSION}`, metadata: {}, items: [] })
    if (path === `/apis/${GROUP}/${VERSION}/redirect`) {
      res.writeHead(302, { location: 'https://example.com/' })
      return res.end()
    }
    if (path === `/openapi/v3/apis/${GROUP}/${VERSION}`) return json(200, OPENAPI_V3)
    if (path === '/openapi/v2') return json(200, { swagger: '2.0', info: { title: 'wardle', version: 'v0' }, paths: { [`/apis/${GROUP}/${VERSION}/`]: { get: { operationId: 'getWardleResources' } } }, definitions: {} })
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' })
  })
  // WebSocket upgrades: the server answers with the user it was sent, then echoes.
  const sockets = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    seen.push({ path: req.url ?? '', headers: req.headers, clientCn: undefined })
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.send(`hello ${String(req.headers['x-remote-user'])}`)
      ws.on('message', (data) => ws.send(`echo ${String(data)}`))
    })
  })
  const [port] = await freePorts(1)
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { server, port: port! }
}

describe('aggregation layer (end to end, kubectl 1.35)', function () {
  this.timeout(180_000)
  let session: KubectlSession
  let ext: { server: Server; port: number }
  const seen: Seen[] = []
  let caBundle: string
  let certDir: string | undefined

  before(async function () {
    const frontProxyCa = await makeCa('front-proxy-ca')
    const proxyClient = await makeClientCert(frontProxyCa, 'front-proxy-client')
    const servingCa = await makeCa('wardle-ca')
    const servingKey = await generateKey('ecdsa')
    const now = Date.now()
    const servingCert = await createLeafCertificate({
      ca: { certPem: servingCa.certPem, privateKey: servingCa.key.privateKey },
      publicKey: servingKey.publicKey,
      commonName: 'api.wardle.svc',
      dns: ['api.wardle.svc'],
      ips: [],
      usage: 'server',
      notBefore: new Date(now - HOUR_MS),
      notAfter: new Date(now + DAY_MS),
    })
    caBundle = Buffer.from(servingCa.certPem).toString('base64')
    ext = await extensionServer({ cert: servingCert, key: privateKeyPem(servingKey.privateKey), clientCa: frontProxyCa.certPem }, seen)
    const dir = (certDir = mkdtempSync(join(tmpdir(), 'aggregator-certs-')))
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text)
      return join(dir, name)
    }
    session = await KubectlSession.open(this, 'aggregator-', {
      waitFor: 'ready',
      args: [
        '--enable-aggregator-routing',
        `--proxy-client-cert-file=${file('proxy.crt', proxyClient.cert)}`,
        `--proxy-client-key-file=${file('proxy.key', proxyClient.key)}`,
        `--requestheader-client-ca-file=${file('front-proxy-ca.crt', frontProxyCa.certPem)}`,
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      ],
    })
  })

  after(async () => {
    await session?.close()
    ext?.server.close()
    if (certDir) rmSync(certDir, { recursive: true, force: true })
  })

  const availableCondition = async (name: string) => {
    const r = await session.run('get', 'apiservice', name, '-o', 'json')
    if (r.code !== 0) return undefined
    const o = JSON.parse(r.stdout) as { status?: { conditions?: Array<Record<string, string>> } }
    return o.status?.conditions?.find((c) => c.type === 'Available')
  }

  const waitFor = async (name: string, want: (c: Record<string, string>) => boolean): Promise<Record<string, string>> => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const c = await availableCondition(name)
      if (c && want(c)) return c
      if (Date.now() > deadline) throw new Error(`${name}: condition ${JSON.stringify(c)}\n${session.server.logs.slice(-3000)}`)
      await new Promise((r) => setTimeout(r, 200))
    }
  }

  it('serves a local APIService for each built-in group version, Available with reason Local and the reference priorities', async () => {
    const apps = JSON.parse(await session.ok('get', 'apiservice', 'v1.apps', '-o', 'json')) as { spec: Record<string, unknown>; status: { conditions: Array<Record<string, string>> } }
    assert.equal(apps.spec.service, null)
    assert.equal(apps.spec.groupPriorityMinimum, 17800)
    assert.equal(apps.spec.versionPriority, 15)
    assert.deepEqual(
      apps.status.conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message })),
      [{ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' }],
    )
    const core = JSON.parse(await session.ok('get', 'apiservice', 'v1.', '-o', 'json')) as { spec: Record<string, unknown> }
    assert.deepEqual([core.spec.groupPriorityMinimum, core.spec.versionPriority], [18000, 1])
  })

  it('registers a local APIService for a CRD group version (group priority 1000, version 100) and removes it with the CRD', async () => {
    session.file('crd.json', JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', ...crontabCrd({ type: 'object' }) }))
    await session.ok('apply', '-f', join(session.tmp, 'crd.json'))
    const c = await waitFor('v1.stable.example.com', (c) => c.status === 'True')
    assert.equal(c.reason, 'Local')
    const o = JSON.parse(await session.ok('get', 'apiservice', 'v1.stable.example.com', '-o', 'json')) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> }
    assert.deepEqual([o.spec.groupPriorityMinimum, o.spec.versionPriority, o.metadata.labels['kube-aggregator.kubernetes.io/automanaged']], [1000, 100, 'true'])
    await session.ok('delete', 'crd', 'crontabs.stable.example.com')
    const deadline = Date.now() + 30_000
    while ((await session.run('get', 'apiservice', 'v1.stable.example.com')).code === 0) {
      if (Date.now() > deadline) throw new Error('the APIService of the deleted CRD is still there')
      await new Promise((r) => setTimeout(r, 200))
    }
  })

  it('reports ServiceNotFound for an APIService whose service is missing', async () => {
    session.file('missing.yaml', apiServiceYaml('v1.missing.example.com', 'missing.example.com', 'v1', 'missing'))
    await session.ok('apply', '-f', join(session.tmp, 'missing.yaml'))
    const c = await waitFor('v1.missing.example.com', (c) => c.reason === 'ServiceNotFound')
    assert.equal(c.status, 'False')
    assert.equal(c.message, 'service/missing in "wardle" is not present')
    const r = await session.run('get', '--raw', '/apis/missing.example.com/v1')
    assert.equal(r.stderr, 'Error from server (ServiceUnavailable): the server is currently unable to handle the request\n')
    const reply = await session.server.get('/apis/missing.example.com/v1')
    assert.deepEqual([reply.status, reply.body], [503, 'service unavailable\n'])
  })

  it('makes the extension server Available and proxies to it with the user in the front-proxy headers and the proxy client certificate', async () => {
    const manifests = [
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: wardle}',
      'apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: wardle}\nspec: {ports: [{port: 443, protocol: TCP, targetPort: 443}]}',
      // An EndpointSlice: Endpoints may not name a loopback address (the reference's validation).
      `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: api-1, namespace: wardle, labels: {kubernetes.io/service-name: api}}\naddressType: IPv4\nendpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]\nports: [{name: '', port: ${ext.port}, protocol: TCP}]`,
      apiServiceYaml(`${VERSION}.${GROUP}`, GROUP, VERSION, 'api', caBundle),
    ]
    session.file('wardle.yaml', manifests.join('\n---\n'))
    await session.ok('apply', '-f', join(session.tmp, 'wardle.yaml'))
    const c = await waitFor(`${VERSION}.${GROUP}`, (c) => c.status === 'True')
    assert.deepEqual([c.reason, c.message], ['Passed', 'all checks passed'])

    const raw = JSON.parse(await session.ok('get', '--raw', `/apis/${GROUP}/${VERSION}`)) as unknown
    assert.deepEqual(raw, RESOURCE_LIST)

    seen.length = 0
    await session.ok('get', '--raw', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`)
    const request = seen.find((s) => s.path.startsWith(`/apis/${GROUP}/${VERSION}/namespaces/default/flunders`))
    assert.ok(request, `the extension server saw ${JSON.stringify(seen.map((s) => s.path))}`)
    assert.equal(request.clientCn, 'front-proxy-client')
    assert.equal(request.headers['x-remote-user'], 'system:admin')
    assert.match(String(request.headers['x-remote-group']), /system:masters/)
    assert.equal(request.headers.authorization, undefined)
  })

  it('lists the extension server resources in kubectl api-resources', async () => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const out = await session.ok('api-resources', `--api-group=${GROUP}`)
      const row = out.split('\n').find((l) => l.startsWith('flunders'))
      if (row) {
        assert.deepEqual(row.trim().split(/\s+/), ['flunders', 'fl', `${GROUP}/${VERSION}`, 'true', 'Flunder'])
        break
      }
      if (Date.now() > deadline) throw new Error(`no flunders row in:\n${out}`)
      await new Promise((r) => setTimeout(r, 500))
    }
  })

  it('reports ServicePortError and EndpointsNotFound with the reference messages', async () => {
    session.file('broken.yaml', [
      'apiVersion: v1\nkind: Service\nmetadata: {name: idle, namespace: wardle}\nspec: {ports: [{port: 443, protocol: TCP}]}',
      apiServiceYaml('v1.port.example.com', 'port.example.com', 'v1', 'api').replace('port: 443}', 'port: 8443}'),
      apiServiceYaml('v1.idle.example.com', 'idle.example.com', 'v1', 'idle'),
    ].join('\n---\n'))
    await session.ok('apply', '-f', join(session.tmp, 'broken.yaml'))
    const port = await waitFor('v1.port.example.com', (c) => c.reason === 'ServicePortError')
    assert.equal(port.message, 'service/api in "wardle" is not listening on port 8443')
    const idle = await waitFor('v1.idle.example.com', (c) => c.reason === 'EndpointsNotFound')
    assert.equal(idle.message, 'cannot find endpointslices for service/idle in "wardle"')
  })

  it('serves the extension server OpenAPI v3 document under /openapi/v3 and merges its v2 paths into /openapi/v2', async () => {
    const deadline = Date.now() + 30_000
    let index: { paths: Record<string, { serverRelativeURL: string }> }
    for (;;) {
      index = JSON.parse(await session.ok('get', '--raw', '/openapi/v3')) as typeof index
      if (index.paths[`apis/${GROUP}/${VERSION}`]) break
      if (Date.now() > deadline) throw new Error(`no apis/${GROUP}/${VERSION} in ${Object.keys(index.paths).join(' ')}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    assert.ok(index.paths['api/v1'], 'the local documents stay listed')
    assert.deepEqual(JSON.parse(await session.ok('get', '--raw', `/openapi/v3/apis/${GROUP}/${VERSION}`)), OPENAPI_V3)
    const v2 = JSON.parse((await session.server.get('/openapi/v2', { accept: 'application/json' })).body) as { paths: Record<string, unknown> }
    assert.ok(v2.paths[`/apis/${GROUP}/${VERSION}/`], 'the extension server path is merged')
    assert.ok(v2.paths['/api/v1/namespaces'], 'the local paths stay')
  })

  it('passes an upgrade request (WebSocket) through to the extension server, the user in its headers', async () => {
    const admin = session.server.admin()
    const ws = new WebSocket(`wss://127.0.0.1:${session.server.port}/apis/${GROUP}/${VERSION}/namespaces/default/flunders/f1/echo`, { cert: admin.cert, key: admin.key, rejectUnauthorized: false })
    const messages: string[] = []
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        messages.push(String(data))
        if (messages.length === 1) ws.send('ping')
        if (messages.length === 2) resolve()
      })
      ws.on('error', reject)
      ws.on('unexpected-response', (_req, res) => reject(new Error(`answered ${res.statusCode}`)))
    })
    ws.close()
    assert.deepEqual(messages, ['hello system:admin', 'echo ping'])
    const upgrade = seen.find((s) => s.path.endsWith('/flunders/f1/echo'))
    assert.equal(upgrade?.headers.authorization, undefined)
  })

  it('answers a redirect from the extension server with 502 (--aggregator-reject-forwarding-redirect defaults to true)', async () => {
    const reply = await session.server.get(`/apis/${GROUP}/${VERSION}/redirect`)
    assert.deepEqual([reply.status, reply.body], [502, 'the backend attempted to redirect this request, which is not permitted\n'])
  })
})

function apiServiceYaml(name: string, group: string, version: string, service: string, caBundle?: string): string {
  return [
    'apiVersion: apiregistration.k8s.io/v1',
    'kind: APIService',
    `metadata: {name: ${name}}`,
    'spec:',
    `  group: ${group}`,
    `  version: ${version}`,
    '  groupPriorityMinimum: 1000',
    '  versionPriority: 15',
    `  service: {namespace: wardle, name: ${service}, port: 443}`,
    ...(caBundle ? [`  caBundle: ${caBundle}`] : ['  insecureSkipTLSVerify: true']),
  ].join('\n')
}
