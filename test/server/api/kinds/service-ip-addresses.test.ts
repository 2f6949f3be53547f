import assert from 'node:assert/strict'
import { repairServiceIPs } from '../../../../src/server/api/kinds/service-ip-addresses.js'
import { type TestRegistry, openTestRegistry } from '../support.js'

describe('controllers: the IPAddress objects of the cluster-IP allocator', () => {
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('ipaddresses-', ['default'], { serviceClusterIPRange: '10.7.0.0/29' })
  })
  afterEach(async () => {
    await t.close()
  })
  const services = () => t.registry.lookup('', 'v1', 'services')!
  const ipaddresses = () => t.registry.lookup('networking.k8s.io', 'v1', 'ipaddresses')!
  const service = (name: string, clusterIP?: string) => ({ metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) } })

  it('an allocated address has its IPAddress; an address held by an IPAddress is not handed out; both go with the Service', async () => {
    // Someone else's IPAddress holds 10.7.0.2: the allocator skips it.
    await ipaddresses().create({ metadata: { name: '10.7.0.2' }, spec: { parentRef: { group: 'example.com', resource: 'gateways', namespace: 'default', name: 'gw' } } })
    const created = await services().create(service('a'))
    assert.equal((created.spec as { clusterIP: string }).clusterIP, '10.7.0.3')
    const address = await ipaddresses().get(undefined, '10.7.0.3')
    assert.deepEqual(address.spec, { parentRef: { resource: 'services', namespace: 'default', name: 'a' } })
    assert.equal(address.metadata.labels?.['ipaddress.kubernetes.io/managed-by'], 'ipallocator.k8s.io')
    // A dry run allocates nothing.
    await services().create(service('dry'), { dryRun: true })
    assert.deepEqual((await ipaddresses().list()).items.map((a) => a.metadata.name).sort(), ['10.7.0.2', '10.7.0.3'])
    await services().delete('default', 'a')
    assert.deepEqual((await ipaddresses().list()).items.map((a) => a.metadata.name), ['10.7.0.2'])
  })

  it('the repair pass gives stored Services without one their IPAddress', async () => {
    await t.store.create('/services/default/old', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'old', namespace: 'default', uid: 'u' }, spec: { clusterIP: '10.7.0.5', clusterIPs: ['10.7.0.5'] } })))
    assert.equal(await repairServiceIPs(services(), ipaddresses()), 1)
    assert.equal(((await ipaddresses().get(undefined, '10.7.0.5')).spec as { parentRef: { name: string } }).parentRef.name, 'old')
    assert.equal(await repairServiceIPs(services(), ipaddresses()), 0)
  })
})
