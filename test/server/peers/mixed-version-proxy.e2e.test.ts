/**
 * Two servers on one etcd as peers (end to end, the built binary): each publishes its identity
 * Lease in kube-system (with the peer address annotation) and its endpoint lease; with
 * UnknownVersionInteroperabilityProxy on, server B, which has batch/v1 and authentication.k8s.io/v1
 * turned off, has their requests answered by server A over the peer connection (A's serving
 * certificate verified with --peer-ca-file, B's proxy client certificate and the user in the
 * front-proxy headers); a server gone leaves B with the reference's 503.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PEER_SYNC_INTERVAL_MS } from '../../../src/server/peers/peer-discovery.js'
import { DAY_MS, HOUR_MS, createLeafCertificate, generateKey, privateKeyPem } from '../../../src/server/tls/generate.js'
import { ApiServer, type ClientCredentials, startExpectingFailure } from '../../support/api-server.js'
import { EtcdServer, freePorts, requireEtcd } from '../../support/etcd.js'
import { openJsonWatch } from '../../support/json-watch.js'
import { type TestCa, makeCa, makeClientCert } from '../authentication/helpers.js'
import { until as pollUntil } from '../../support/until.js'

interface Lease {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string }
}

async function servingCert(ca: TestCa): Promise<ClientCredentials> {
  const key = await generateKey('ecdsa')
  const now = Date.now()
  const cert = await createLeafCertificate({
    ca: { certPem: ca.certPem, privateKey: ca.key.privateKey },
    publicKey: key.publicKey,
    commonName: 'kube-apiserver',
    organizations: [],
    // The name peers verify (kubernetes.default.svc) and the address tests use.
    dns: ['kubernetes.default.svc', 'localhost'],
    ips: ['127.0.0.1'],
    usage: 'server',
    notBefore: new Date(now - HOUR_MS),
    notAfter: new Date(now + DAY_MS),
  })
  return { cert, key: privateKeyPem(key.privateKey) }
}

/** Server-side changes over HTTP: polled every 200 ms, for up to 30 s. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => pollUntil(what, probe, timeoutMs, 200)

describe('peers: identity leases and the mixed-version proxy (two servers on one etcd, end to end)', function () {
  this.timeout(180_000)
  let etcd: EtcdServer | undefined
  let a: ApiServer | undefined
  let b: ApiServer | undefined
  let dir: string
  let admin: ClientCredentials
  let aPort: number
  const json = { 'content-type': 'application/json' }

  before(async function () {
    requireEtcd(this)
    dir = mkdtempSync(join(tmpdir(), 'peers-'))
    const [servingCa, clientCa, proxyCa] = await Promise.all([makeCa('peer-ca'), makeCa('client-ca'), makeCa('front-proxy-ca')])
    const serving = await servingCert(servingCa)
    admin = await makeClientCert(clientCa, 'peer-admin', ['system:masters'])
    const proxyClient = await makeClientCert(proxyCa, 'front-proxy-client')
    const files: Record<string, string> = {
      'peer-ca.crt': servingCa.certPem,
      'client-ca.crt': clientCa.certPem,
      'proxy-ca.crt': proxyCa.certPem,
      'serving.crt': serving.cert,
      'serving.key': serving.key,
      'proxy-client.crt': proxyClient.cert,
      'proxy-client.key': proxyClient.key,
    }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    etcd = await EtcdServer.start()
    const common = [
      `--store-servers=${etcd.clientUrl}`,
      '--feature-gates=UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true',
      `--tls-cert-file=${join(dir, 'serving.crt')}`,
      `--tls-private-key-file=${join(dir, 'serving.key')}`,
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--peer-ca-file=${join(dir, 'peer-ca.crt')}`,
      `--proxy-client-cert-file=${join(dir, 'proxy-client.crt')}`,
      `--proxy-client-key-file=${join(dir, 'proxy-client.key')}`,
      `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-uid-headers=X-Remote-Uid',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ]
    ;[aPort] = await freePorts(1)
    a = await ApiServer.start({
      anonymous: true,
      waitFor: 'ready',
      port: aPort,
      env: { CLIENT_TEST_HOSTNAME: 'peer-a' },
      args: [...common, '--peer-advertise-ip=127.0.0.1', `--peer-advertise-port=${aPort}`],
    })
    // An identity lease of a server gone an hour ago: B's garbage collector removes it at start.
    const old = new Date(Date.now() - 2 * HOUR_MS).toISOString().replace('Z', '000Z')
    const stale = await a.get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', json, 'POST', JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'apiserver-gone', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } },
      spec: { holderIdentity: 'apiserver-gone_1', leaseDurationSeconds: 3600, renewTime: old },
    }), admin)
    assert.equal(stale.status, 201, stale.body)
    b = await ApiServer.start({
      anonymous: true,
      waitFor: 'ready',
      env: { CLIENT_TEST_HOSTNAME: 'peer-b' },
      args: [...common, '--runtime-config=batch/v1=false,authentication.k8s.io/v1=false'],
    })
  })

  after(async () => {
    await b?.stop()
    await a?.stop()
    await etcd?.destroy()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const identityLeases = async (server: ApiServer): Promise<Lease[]> => {
    const r = await server.get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver', {}, 'GET', undefined, admin)
    assert.equal(r.status, 200, r.body)
    return (JSON.parse(r.body) as { items: Lease[] }).items
  }

  it('each server publishes its identity Lease with its peer address; an expired one of a server gone is collected', async () => {
    const leases = await until('both identity leases and no stale one', async () => {
      const items = await identityLeases(b!)
      return items.length === 2 && !items.some((l) => l.metadata.name === 'apiserver-gone') ? items : undefined
    })
    const byHost = new Map(leases.map((l) => [l.metadata.labels?.['kubernetes.io/hostname'], l]))
    const leaseA = byHost.get('peer-a')!
    const leaseB = byHost.get('peer-b')!
    assert.ok(leaseA && leaseB, JSON.stringify(leases))
    for (const lease of [leaseA, leaseB]) {
      assert.match(lease.metadata.name, /^apiserver-[a-z2-7]{26}$/)
      assert.ok(lease.spec.holderIdentity?.startsWith(`${lease.metadata.name}_`), lease.spec.holderIdentity)
      assert.equal(lease.spec.leaseDurationSeconds, 3600)
      assert.ok(lease.spec.renewTime)
    }
    assert.notEqual(leaseA.metadata.name, leaseB.metadata.name)
    // A names its --peer-advertise-ip/port; B defaults to its advertised address and secure port.
    assert.equal(leaseA.metadata.annotations?.['kubernetes.io/peer-advertise-address'], `127.0.0.1:${aPort}`)
    assert.equal(leaseB.metadata.annotations?.['kubernetes.io/peer-advertise-address'], `127.0.0.1:${b!.port}`)
  })

  it('B answers a request for a group/version it has turned off through A', async () => {
    // Served locally, B's own answer would be a 404: it does not serve batch/v1.
    const list = await until('B proxying batch/v1 to A', async () => {
      const r = await b!.get('/apis/batch/v1/namespaces/default/jobs', {}, 'GET', undefined, admin)
      return r.status === 200 ? r : undefined
    })
    assert.equal((JSON.parse(list.body) as { kind: string }).kind, 'JobList')
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'through-b' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    }
    const created = await b!.get('/apis/batch/v1/namespaces/default/jobs', json, 'POST', JSON.stringify(job), admin)
    assert.equal(created.status, 201, created.body)
    const onA = await a!.get('/apis/batch/v1/namespaces/default/jobs/through-b', {}, 'GET', undefined, admin)
    assert.equal(onA.status, 200, onA.body)
  })

  it('a watch through B streams A\'s events', async () => {
    const watch = openJsonWatch<{ type: string; object: { metadata: { name: string } } }>(b!.port, '/apis/batch/v1/namespaces/default/jobs?watch=true', admin)
    try {
      assert.equal(await watch.status, 200)
      const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'watched' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } }
      const created = await a!.get('/apis/batch/v1/namespaces/default/jobs', json, 'POST', JSON.stringify(job), admin)
      assert.equal(created.status, 201, created.body)
      await until('the ADDED event through B', async () => (watch.events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched') ? true : undefined), 10_000)
    } finally {
      watch.close()
    }
  })

  it('the proxied request reaches A as the requesting user (the front-proxy headers)', async () => {
    const review = await b!.get('/apis/authentication.k8s.io/v1/selfsubjectreviews', json, 'POST', JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }), admin)
    assert.equal(review.status, 201, review.body)
    const userInfo = (JSON.parse(review.body) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo
    assert.equal(userInfo.username, 'peer-admin')
    assert.ok(userInfo.groups.includes('system:masters'), JSON.stringify(userInfo))
  })

  it('B counts the requests it sent to a peer (apiserver_rerouted_request_total)', async () => {
    const metrics = await b!.get('/metrics', {}, 'GET', undefined, admin)
    assert.equal(metrics.status, 200)
    const line = metrics.body.split('\n').find((l) => l.startsWith('apiserver_rerouted_request_total{') && l.includes('code="201"') && l.includes('group="batch"') && l.includes('version="v1"') && l.includes('resource="jobs"'))
    assert.ok(line, metrics.body.split('\n').filter((l) => l.includes('rerouted')).join('\n'))
    assert.equal(line.split(' ').at(-1), '1')
  })

  it('a group/version no server serves is answered by B itself (404)', async () => {
    const r = await b!.get('/apis/nothing.example.com/v1/things', {}, 'GET', undefined, admin)
    assert.equal(r.status, 404, r.body)
  })

  it('without a proxy client certificate the proxy cannot be built: the server does not start', async () => {
    const [port] = await freePorts(1)
    const { code, output } = await startExpectingFailure([
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'no-proxy-certs')}`,
      `--data-dir=${join(dir, 'no-proxy-data')}`,
      '--feature-gates=UnknownVersionInteroperabilityProxy=true,StorageVersionAPI=true',
    ])
    assert.equal(code, 1)
    assert.match(output, /error building peer proxy handler, proxy-cert-file not specified/)
  })

  it('A gone (its endpoint lease removed), B answers 503 for what only A served', async () => {
    // B reads its peers again while one of them could not be read (the stale lease, before its
    // collection); once a read of all has succeeded, B keeps A until A's identity lease changes.
    await new Promise((r) => setTimeout(r, 2 * PEER_SYNC_INTERVAL_MS + 500))
    await a!.stop()
    a = undefined
    const r = await b!.get('/apis/batch/v1/namespaces/default/jobs', {}, 'GET', undefined, admin)
    assert.equal(r.status, 503, r.body)
    const status = JSON.parse(r.body) as { kind: string; reason: string; message: string }
    assert.equal(status.kind, 'Status')
    assert.equal(status.reason, 'ServiceUnavailable')
    assert.equal(status.message, 'Error getting ip and port info of the remote server while proxying')
  })
})
