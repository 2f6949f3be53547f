/**
 * Coordinated leader election end to end (the built binary, CoordinatedLeaderElection on,
 * coordination.k8s.io/v1beta1 served): the server holds `kube-system/leader-election-controller`
 * with the --coordinated-leadership-* timers; LeaseCandidates created through the API are
 * pinged, and once they answer (as client-go's candidates do, by renewing) the Lease they
 * contend for is written with the candidate of the oldest emulation version as holder; a
 * candidate not renewed for 30 minutes is collected when the controller starts.
 */
import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { until as pollUntil } from '../../support/until.js'

interface Lease {
  spec: { preferredHolder?: string; holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; strategy?: string; acquireTime?: string; leaseTransitions?: number }
}
interface Candidate {
  metadata: { name: string; resourceVersion: string }
  spec: { leaseName: string; renewTime?: string; pingTime?: string }
}

const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z')
const LC = '/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates'
const json = { 'content-type': 'application/json' }

/** Server-side changes over HTTP: polled every 200 ms, for up to 30 s. */
const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> => pollUntil(what, probe, timeoutMs, 200)

describe('controllers: coordinated leader election (end to end)', function () {
  this.timeout(120_000)
  let server: ApiServer | undefined
  const args = [
    '--feature-gates=CoordinatedLeaderElection=true',
    '--runtime-config=coordination.k8s.io/v1beta1=true',
    '--coordinated-leadership-lease-duration=7s',
    '--coordinated-leadership-renew-deadline=5s',
    '--coordinated-leadership-retry-period=1s',
  ]

  before(async () => {
    server = await ApiServer.start({ waitFor: 'ready', env: { CLIENT_TEST_HOSTNAME: 'cle-host' }, args })
  })
  after(async () => {
    await server?.stop()
  })

  const lease = async (namespace: string, name: string): Promise<Lease | undefined> => {
    const r = await server!.get(`/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`)
    return r.status === 200 ? (JSON.parse(r.body) as Lease) : undefined
  }

  it('the server holds the controller Lease with the --coordinated-leadership-* duration, renewed every retry period', async () => {
    const first = await until('the leader-election-controller lease', () => lease('kube-system', 'leader-election-controller'))
    assert.match(first.spec.holderIdentity ?? '', /^cle-host_[0-9a-f-]{36}$/)
    assert.equal(first.spec.leaseDurationSeconds, 7)
    const renewed = await until('a renewal', async () => {
      const now = await lease('kube-system', 'leader-election-controller')
      return now && now.spec.renewTime !== first.spec.renewTime ? now : undefined
    }, 5_000)
    assert.equal(renewed.spec.holderIdentity, first.spec.holderIdentity)
    assert.equal(renewed.spec.acquireTime, first.spec.acquireTime)
  })

  it('pings the candidates, and once they answer, elects the one of the oldest emulation version', async () => {
    const stale = micro(Date.now() - 60_000)
    for (const [name, emulationVersion] of [['cand-new', '1.35.0'], ['cand-old', '1.34.0']]) {
      const body = { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', metadata: { name }, spec: { leaseName: 'cle-test', binaryVersion: '1.35.0', emulationVersion, strategy: 'OldestEmulationVersion', renewTime: stale } }
      const r = await server!.get(LC, json, 'POST', JSON.stringify(body))
      assert.equal(r.status, 201, r.body)
    }
    // Not renewed for a minute: no leader before they answer the ping.
    const pinged = await until('both candidates pinged', async () => {
      const items = (JSON.parse((await server!.get(LC)).body) as { items: Candidate[] }).items.filter((c) => c.spec.leaseName === 'cle-test')
      return items.length === 2 && items.every((c) => c.spec.pingTime) ? items : undefined
    })
    assert.equal(await lease('default', 'cle-test'), undefined)
    // Each answers as a candidate does: renewTime after the pingTime.
    for (const c of pinged) {
      const r = await server!.get(`${LC}/${c.metadata.name}`, json, 'PUT', JSON.stringify({ apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', ...c, spec: { ...c.spec, renewTime: micro(Date.now()) } }))
      assert.equal(r.status, 200, r.body)
    }
    const elected = await until('the elected lease', () => lease('default', 'cle-test'))
    assert.equal(elected.spec.holderIdentity, 'cand-old')
    assert.equal(elected.spec.strategy, 'OldestEmulationVersion')
    assert.equal(elected.spec.leaseDurationSeconds, 5)
  })

  const createLease = async (name: string, renewedAgoMs: number, durationSeconds: number) => {
    const body = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'someone', leaseDurationSeconds: durationSeconds, renewTime: micro(Date.now() - renewedAgoMs) } }
    const r = await server!.get('/apis/coordination.k8s.io/v1/namespaces/default/leases', json, 'POST', JSON.stringify(body))
    assert.equal(r.status, 201, r.body)
  }
  const createCandidate = async (name: string, leaseName: string) => {
    const body = { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', metadata: { name }, spec: { leaseName, binaryVersion: '1.35.0', emulationVersion: '1.33.0', strategy: 'OldestEmulationVersion', renewTime: micro(Date.now()) } }
    const r = await server!.get(LC, json, 'POST', JSON.stringify(body))
    assert.equal(r.status, 201, r.body)
  }

  it('a Lease held and not expired keeps its holder and gets the better candidate as preferredHolder', async () => {
    await createLease('held', 0, 600)
    await createCandidate('cand-better', 'held')
    const held = await until('the preferred holder', async () => {
      const l = await lease('default', 'held')
      return l?.spec.preferredHolder ? l : undefined
    })
    assert.equal(held.spec.preferredHolder, 'cand-better')
    assert.equal(held.spec.holderIdentity, 'someone')
    assert.equal(held.spec.strategy, 'OldestEmulationVersion')
  })

  it('an expired Lease is given to the best candidate', async () => {
    await createLease('expired', 60_000, 5)
    await createCandidate('cand-next', 'expired')
    const taken = await until('the new holder', async () => {
      const l = await lease('default', 'expired')
      return l?.spec.holderIdentity === 'cand-next' ? l : undefined
    })
    assert.equal(taken.spec.leaseDurationSeconds, 5)
    assert.equal(taken.spec.preferredHolder, undefined)
  })

  it('a candidate not renewed for 30 minutes is collected when the controller starts', async () => {
    const body = { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'LeaseCandidate', metadata: { name: 'cand-gone' }, spec: { leaseName: 'other', binaryVersion: '1.35.0', emulationVersion: '1.35.0', strategy: 'OldestEmulationVersion', renewTime: micro(Date.now() - 31 * 60_000) } }
    const r = await server!.get(LC, json, 'POST', JSON.stringify(body))
    assert.equal(r.status, 201, r.body)
    const { certDir, dataDir } = server!
    await server!.stop(true)
    server = await ApiServer.start({ waitFor: 'ready', certDir, dataDir, env: { CLIENT_TEST_HOSTNAME: 'cle-host' }, args })
    await until('cand-gone collected', async () => ((await server!.get(`${LC}/cand-gone`)).status === 404 ? true : undefined), 40_000)
    // The candidates renewed a moment ago stay.
    assert.equal((await server!.get(`${LC}/cand-old`)).status, 200)
  })
})

describe('controllers: coordinated leader election, two servers on one etcd (end to end)', function () {
  this.timeout(120_000)
  let etcd: EtcdServer | undefined
  const servers = new Map<string, ApiServer>()

  before(async function () {
    requireEtcd(this)
    etcd = await EtcdServer.start()
    const args = [
      `--store-servers=${etcd.clientUrl}`,
      '--feature-gates=CoordinatedLeaderElection=true',
      '--runtime-config=coordination.k8s.io/v1beta1=true',
      '--coordinated-leadership-lease-duration=4s',
      '--coordinated-leadership-renew-deadline=3s',
      '--coordinated-leadership-retry-period=500ms',
    ]
    for (const host of ['cle-a', 'cle-b']) servers.set(host, await ApiServer.start({ waitFor: 'ready', env: { CLIENT_TEST_HOSTNAME: host }, args }))
  })
  after(async () => {
    for (const server of servers.values()) await server.stop()
    await etcd?.destroy()
  })

  const controllerLease = async (server: ApiServer): Promise<Lease | undefined> => {
    const r = await server.get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/leader-election-controller')
    return r.status === 200 ? (JSON.parse(r.body) as Lease) : undefined
  }

  it('one server holds the controller Lease while it renews it; the other takes it over once the holder stops', async () => {
    const any = servers.get('cle-a')!
    const first = await until('the controller lease', () => controllerLease(any))
    const leader = /^(cle-[ab])_/.exec(first.spec.holderIdentity ?? '')?.[1]
    assert.ok(leader, first.spec.holderIdentity)
    // The other candidate does not take a lease renewed in time.
    await new Promise((r) => setTimeout(r, 5_000))
    const later = (await controllerLease(any))!
    assert.equal(later.spec.holderIdentity, first.spec.holderIdentity)
    assert.equal(later.spec.leaseTransitions ?? 0, first.spec.leaseTransitions ?? 0)
    assert.notEqual(later.spec.renewTime, first.spec.renewTime)

    const other = leader === 'cle-a' ? 'cle-b' : 'cle-a'
    await servers.get(leader)!.stop()
    servers.delete(leader)
    const taken = await until('the other server leading', async () => {
      const lease = await controllerLease(servers.get(other)!)
      return lease?.spec.holderIdentity?.startsWith(`${other}_`) ? lease : undefined
    }, 20_000)
    assert.equal(taken.spec.leaseTransitions, (first.spec.leaseTransitions ?? 0) + 1)
  })
})
