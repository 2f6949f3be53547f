/**
 * Two `cluster start` processes on one etcd: kube-controller-manager's controllers run in the one
 * holding the Lease kube-system/kube-controller-manager (holder `<host>_<uuid>`, as client-go's
 * leader election writes it) and the simulated nodes in the holder of their own Lease; killing
 * that process (SIGKILL: it renews nothing more) moves both to the other within the lease
 * duration (15 s) and a retry period, and the nodes stay Ready.
 */
import assert from 'node:assert/strict'
import { ApiServer } from '../../support/api-server.js'
import { startCluster } from '../../support/cluster.js'
import { EtcdServer, requireEtcd } from '../../support/etcd.js'
import { until } from '../../support/until.js'

interface Lease {
  spec: { holderIdentity?: string; leaseTransitions?: number }
}

describe('cluster start: two processes on one etcd', function () {
  this.timeout(180_000)
  let etcd: EtcdServer | undefined
  const clusters = new Map<string, ApiServer>()

  before(async function () {
    requireEtcd(this)
    etcd = await EtcdServer.start()
    for (const host of ['cl-a', 'cl-b']) clusters.set(host, await startCluster({ env: { CLIENT_TEST_HOSTNAME: host }, args: [`--store-servers=${etcd.clientUrl}`, '--nodes=2'] }))
  })
  after(async () => {
    for (const c of clusters.values()) await c.stop()
    await etcd?.destroy()
  })

  const holder = async (via: ApiServer, name: string): Promise<string | undefined> => {
    const r = await via.get(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`)
    return r.status === 200 ? /^(cl-[ab])_[0-9a-f-]{36}$/.exec((JSON.parse(r.body) as Lease).spec.holderIdentity ?? '')?.[1] : undefined
  }
  const readyNodes = async (via: ApiServer) => {
    const r = await via.get('/api/v1/nodes')
    const items = (JSON.parse(r.body) as { items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> }).items
    return items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length
  }

  it('runs the controllers and the nodes in one process, and in the other once it is killed', async () => {
    const a = clusters.get('cl-a')!
    const leader = await until('the kube-controller-manager lease', () => holder(a, 'kube-controller-manager'), 30_000)
    const nodesLeader = await until('the simulated nodes lease', () => holder(a, 'client-simulated-nodes'), 30_000)
    await until('2 Ready nodes', async () => ((await readyNodes(a)) === 2 ? true : undefined), 30_000)
    // Held, not passed back and forth: the other candidate waits while the holder renews.
    await new Promise((r) => setTimeout(r, 4_000))
    assert.equal(await holder(a, 'kube-controller-manager'), leader)
    assert.equal(await holder(a, 'client-simulated-nodes'), nodesLeader)
    if (leader !== nodesLeader) return assert.fail(`the two leases went to different processes (${leader}, ${nodesLeader}); the failover below needs one`)

    const survivor = clusters.get(leader === 'cl-a' ? 'cl-b' : 'cl-a')!
    clusters.get(leader)!.signal('SIGKILL')
    const killedAt = Date.now()
    const next = await until('the other process holding the lease', async () => ((await holder(survivor, 'kube-controller-manager')) !== leader ? holder(survivor, 'kube-controller-manager') : undefined), 40_000, 250)
    assert.notEqual(next, leader)
    assert.ok(Date.now() - killedAt < 15_000 + 2_000 + 3_000, `taken over after ${Date.now() - killedAt} ms`)
    await until('the simulated nodes moved too', async () => ((await holder(survivor, 'client-simulated-nodes')) === next ? true : undefined), 40_000, 250)
    assert.equal(await readyNodes(survivor), 2)
  })
})
