import assert from 'node:assert/strict'
import { ApiError } from '../../../src/server/api/status-errors.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from './support.js'

function service(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec }
}

async function invalid(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  )
  assert.ok(err instanceof ApiError, String(err))
  return err
}

describe('api: Service cluster IPs and node ports', () => {
  let t: TestRegistry
  const store = () => t.registry.lookup('', 'v1', 'services')!
  beforeEach(async () => {
    t = await openTestRegistry('client-services-', ['default'], { serviceClusterIPRange: '10.96.0.0/28', serviceNodePortRange: { base: 31000, size: 3 } })
  })
  afterEach(() => t.close())

  it('cluster IPs come from the configured range, never its first address', async () => {
    const a = await store().create(service('a', { ports: [{ port: 80 }] }))
    assert.match(String((a.spec as { clusterIP: string }).clusterIP), /^10\.96\.0\.([2-9]|1[0-4])$/)
    const err = await invalid(store().create(service('b', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] })))
    assert.equal(err.code, 422)
    assert.match(err.message, /spec\.clusterIPs: Invalid value: \["10\.0\.0\.5"\]: failed to allocate IP 10\.0\.0\.5: provided IP is not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/28/)
  })

  it('NodePort services get free ports of the range; named ports must be in it and free', async () => {
    // Several ports need names (ValidateService: spec.ports[i].name is required when there are two or more).
    const a = await store().create(service('a', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] }))
    const ports = (a.spec as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort)
    assert.equal(new Set(ports).size, 2)
    for (const p of ports) assert.ok(p >= 31000 && p <= 31002, String(p))
    assert.equal((a.spec as { externalTrafficPolicy: string }).externalTrafficPolicy, 'Cluster')

    const outside = await invalid(store().create(service('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })))
    assert.equal(outside.code, 422)
    assert.equal(
      outside.message,
      'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 31000-31002',
    )
    const taken = await invalid(store().create(service('c', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] })))
    assert.equal(taken.message, `Service "c" is invalid: spec.ports[0].nodePort: Invalid value: ${ports[0]}: provided port is already allocated`)

    // One port left: a service asking for two cannot be given them.
    const full = await invalid(store().create(service('d', { type: 'NodePort', ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] })))
    assert.equal(full.code, 500)
    assert.match(full.message, /range is full/)
  })

  it('an update that leaves nodePort out keeps the allocated one; ClusterIP may not name one', async () => {
    const a = await store().create(service('a', { type: 'NodePort', ports: [{ port: 80 }] }))
    const before = (a.spec as { ports: { nodePort: number }[] }).ports[0]!.nodePort
    const updated = await store().update('default', 'a', (cur) => ({ ...cur, spec: { ...(cur.spec as object), ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }] } }))
    assert.equal((updated.spec as { ports: { nodePort: number }[] }).ports[0]!.nodePort, before)

    const err = await invalid(store().create(service('b', { type: 'ClusterIP', ports: [{ port: 80, nodePort: 31001 }] })))
    assert.equal(err.message, "Service \"b\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'")
  })
})
