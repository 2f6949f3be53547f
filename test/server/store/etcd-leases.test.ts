import assert from 'node:assert/strict'
import { LeaseManager } from '../../../src/server/store/etcd-leases.js'

describe('etcd TTL leases', () => {
  const setup = (reuse = 60) => {
    let now = 1_000_000
    const grants: number[] = []
    const manager = new LeaseManager({ grant: async (ttl) => (grants.push(ttl), `lease-${grants.length}`) }, reuse, () => now)
    return { manager, grants, advance: (ms: number) => (now += ms) }
  }

  it('grants ttl plus 5 % (at most the reuse duration) and reuses the lease within that window', async () => {
    const { manager, grants, advance } = setup()
    assert.equal(await manager.leaseFor(3600), 'lease-1')
    assert.deepEqual(grants, [3660], 'an hour gets the 60 s reuse cap, not 180 s')
    advance(59_000)
    assert.equal(await manager.leaseFor(3600), 'lease-1', 'the same lease still outlives the TTL')
    advance(2_000)
    assert.equal(await manager.leaseFor(3600), 'lease-2', 'past the window a new lease is granted')
    assert.deepEqual(grants, [3660, 3660])
  })

  it('uses 5 % of short TTLs, and a new lease when the old one would end too early or far too late', async () => {
    const { manager, grants } = setup()
    await manager.leaseFor(100)
    assert.deepEqual(grants, [105])
    await manager.leaseFor(10)
    assert.deepEqual(grants, [105, 10], 'a lease ending 95 s too late is not reused for a 10 s TTL')
  })

  it('grants once for concurrent writers', async () => {
    const { manager, grants } = setup()
    const ids = await Promise.all([manager.leaseFor(600), manager.leaseFor(600), manager.leaseFor(600)])
    assert.deepEqual(ids, ['lease-1', 'lease-1', 'lease-1'])
    assert.equal(grants.length, 1)
  })
})
