/**
 * The endpoints and EndpointSlice controllers over a registry, the test playing the nodes (pod
 * IPs and readiness). Expected shapes are the reference's: Endpoints subsets with ready pods in
 * addresses and the others in notReadyAddresses (pkg/controller/endpoint addEndpointSubset);
 * EndpointSlices labelled kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by
 * endpointslice-controller.k8s.io, endpoints with ready/serving/terminating, nodeName, zone and
 * targetRef (k8s.io/endpointslice utils.go podToEndpoint); named target ports resolved from the
 * containers (podutil.FindPort); Services without a selector left alone by both, their
 * Endpoints mirrored into slices managed by endpointslicemirroring-controller.k8s.io unless
 * labelled skip-mirror (pkg/controller/endpointslicemirroring).
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { EndpointsController } from '../../../src/server/controllers/endpoints-controller.js'
import { EndpointSliceController } from '../../../src/server/controllers/endpointslice-controller.js'
import { EndpointSliceMirroringController } from '../../../src/server/controllers/endpointslice-mirroring-controller.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'
import { runPod } from './pod-lifecycle.js'

type Obj = Record<string, any>

describe('controllers: endpoints-controller and endpointslice-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const store = (resource: string, group = ''): GenericStore => t.registry.lookup(group, 'v1', resource)!
  const slicesOf = async (service: string) =>
    (await store('endpointslices', 'discovery.k8s.io').list({ namespace: 'default' })).items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service) as Obj[]
  const endpointsOf = async (service: string) => (await store('endpoints').list({ namespace: 'default' })).items.find((e) => e.metadata.name === service) as Obj | undefined
  const createPod = async (name: string, ip: string, ready: boolean, labels: Record<string, string> = { app: 'web' }): Promise<KubeObject> => {
    const pod = await store('pods').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels },
      spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'web', containerPort: 8080 }] }] },
    })
    return runPod(t.registry, pod, { ready, ip })
  }
  const createService = (name: string, spec: Obj) => store('services').create({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', labels: { tier: 'front' } }, spec })

  beforeEach(async () => {
    t = await openTestRegistry('endpoints-controllers-')
    await store('nodes').create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', labels: { 'topology.kubernetes.io/zone': 'zone-1' } } })
    manager = new ControllerManager([new EndpointsController(), new EndpointSliceController({ maxEndpointsPerSlice: 2 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('lists ready and not-ready pods with named target ports resolved, in Endpoints and EndpointSlices', async () => {
    const ready = await createPod('web-1', '10.244.0.5', true)
    const notReady = await createPod('web-2', '10.244.0.6', false)
    await createPod('other', '10.244.0.9', true, { app: 'other' })
    const service = await createService('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'web' }] })

    await eventually(async () => (await endpointsOf('web'))?.subsets?.[0]?.notReadyAddresses?.length === 1, 'the Endpoints subsets')
    const endpoints = (await endpointsOf('web'))!
    assert.deepEqual(endpoints.subsets, [
      {
        addresses: [{ ip: '10.244.0.5', nodeName: 'node-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: ready.metadata.uid } }],
        notReadyAddresses: [{ ip: '10.244.0.6', nodeName: 'node-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-2', uid: notReady.metadata.uid } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ])
    assert.equal(endpoints.metadata.labels.tier, 'front')

    await eventually(async () => (await slicesOf('web')).flatMap((s) => s.endpoints).length === 2, 'the slice endpoints')
    const [slice] = await slicesOf('web')
    assert.match(slice!.metadata.name, /^web-[a-z0-9]{5}$/)
    assert.equal(slice!.addressType, 'IPv4')
    assert.equal(slice!.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io')
    assert.equal(slice!.metadata.labels.tier, 'front')
    assert.deepEqual(slice!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: service.metadata.uid, controller: true, blockOwnerDeletion: true }])
    assert.deepEqual(slice!.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }])
    const byName = new Map<string, Obj>(slice!.endpoints.map((e: Obj) => [e.targetRef.name, e]))
    assert.deepEqual(byName.get('web-1'), {
      addresses: ['10.244.0.5'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: ready.metadata.uid },
      nodeName: 'node-a',
      zone: 'zone-1',
    })
    assert.deepEqual(byName.get('web-2')!.conditions, { ready: false, serving: false, terminating: false })

    // A pod being deleted: terminating, not ready, still serving.
    await store('pods').delete('default', 'web-1', { gracePeriodSeconds: 30 })
    await eventually(async () => (await slicesOf('web')).flatMap((s) => s.endpoints).find((e: Obj) => e.targetRef.name === 'web-1')?.conditions.terminating === true, 'the terminating endpoint')
    assert.deepEqual((await slicesOf('web')).flatMap((s) => s.endpoints).find((e: Obj) => e.targetRef.name === 'web-1').conditions, { ready: false, serving: true, terminating: true })
    await eventually(async () => (await endpointsOf('web'))?.subsets?.[0]?.addresses === undefined, 'the terminating pod out of the Endpoints')
  })

  it('splits endpoints over slices at the maximum and keeps one placeholder slice without pods', async () => {
    await createService('many', { selector: { app: 'many' }, ports: [{ port: 80 }] })
    await eventually(async () => (await slicesOf('many')).length === 1, 'the placeholder slice')
    assert.deepEqual((await slicesOf('many'))[0]!.endpoints, [])
    for (let i = 1; i <= 3; i++) await createPod(`many-${i}`, `10.244.1.${i}`, true, { app: 'many' })
    await eventually(async () => (await slicesOf('many')).flatMap((s) => s.endpoints).length === 3, 'three endpoints')
    assert.deepEqual((await slicesOf('many')).map((s) => s.endpoints.length).sort(), [1, 2])
    assert.deepEqual((await slicesOf('many'))[0]!.ports, [{ name: '', port: 80, protocol: 'TCP' }])
  })

  it('leaves Services without a selector alone, and lists a headless Service without ports', async () => {
    await createPod('db-0', '10.244.2.1', true, { app: 'db' })
    await createService('manual', { ports: [{ port: 80 }] })
    await createService('db', { clusterIP: 'None', selector: { app: 'db' } })
    await eventually(async () => (await endpointsOf('db'))?.subsets?.length === 1, 'the headless Endpoints')
    assert.deepEqual((await endpointsOf('db'))!.subsets[0].addresses.map((a: Obj) => a.ip), ['10.244.2.1'])
    assert.equal((await endpointsOf('db'))!.subsets[0].ports, undefined)
    assert.equal((await endpointsOf('db'))!.metadata.labels['service.kubernetes.io/headless'], '')
    await eventually(async () => (await slicesOf('db')).flatMap((s) => s.endpoints).length === 1, 'the headless slice')
    assert.equal((await endpointsOf('manual')), undefined)
    assert.deepEqual(await slicesOf('manual'), [])
  })

  it('truncates an Endpoints over capacity, ready addresses first, and says so', async () => {
    await manager.stop()
    manager = new ControllerManager([new EndpointsController({ maxCapacity: 2 })])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
    await createPod('big-1', '10.244.3.1', true, { app: 'big' })
    await createPod('big-2', '10.244.3.2', false, { app: 'big' })
    await createPod('big-3', '10.244.3.3', true, { app: 'big' })
    await createService('big', { selector: { app: 'big' }, ports: [{ port: 80 }] })
    await eventually(async () => (await endpointsOf('big'))?.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'] === 'truncated', 'the over-capacity annotation')
    const subset = (await endpointsOf('big'))!.subsets[0]
    assert.deepEqual(subset.addresses.map((a: Obj) => a.ip), ['10.244.3.1', '10.244.3.3'])
    assert.equal(subset.notReadyAddresses, undefined)
  })

  it('deletes the Endpoints of a deleted Service', async () => {
    await createService('gone', { selector: { app: 'gone' }, ports: [{ port: 80 }] })
    await eventually(async () => (await endpointsOf('gone')) !== undefined, 'the Endpoints')
    await store('services').delete('default', 'gone')
    await eventually(async () => (await endpointsOf('gone')) === undefined, 'the Endpoints deleted')
  })
})

describe('controllers: endpointslice-mirroring-controller', function () {
  this.timeout(20_000)
  let t: TestRegistry
  let manager: ControllerManager
  const store = (resource: string, group = ''): GenericStore => t.registry.lookup(group, 'v1', resource)!
  const slicesOf = async (service: string) =>
    (await store('endpointslices', 'discovery.k8s.io').list({ namespace: 'default' })).items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service) as Obj[]

  beforeEach(async () => {
    t = await openTestRegistry('endpointslice-mirroring-')
    manager = new ControllerManager([new EndpointSliceMirroringController()])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('mirrors the Endpoints of a Service without a selector, and not those labelled skip-mirror', async () => {
    const service = await store('services').create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', namespace: 'default' }, spec: { ports: [{ name: 'db', port: 5432 }] } })
    await store('endpoints').create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'ext', namespace: 'default', labels: { team: 'data' } },
      subsets: [{ addresses: [{ ip: '192.0.2.10' }], notReadyAddresses: [{ ip: '192.0.2.11' }], ports: [{ name: 'db', port: 5432, protocol: 'TCP' }] }],
    })
    await store('services').create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'skipped', namespace: 'default' }, spec: { ports: [{ port: 80 }] } })
    await store('endpoints').create({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'skipped', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: '192.0.2.20' }], ports: [{ port: 80, protocol: 'TCP' }] }],
    })
    await eventually(async () => (await slicesOf('ext')).length === 1, 'the mirrored slice')
    const [slice] = await slicesOf('ext')
    assert.match(slice!.metadata.name, /^ext-[a-z0-9]{5}$/)
    assert.equal(slice!.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslicemirroring-controller.k8s.io')
    assert.equal(slice!.metadata.labels.team, 'data')
    assert.equal(slice!.metadata.ownerReferences[0].uid, service.metadata.uid)
    assert.equal(slice!.addressType, 'IPv4')
    assert.deepEqual(slice!.ports, [{ name: 'db', port: 5432, protocol: 'TCP' }])
    assert.deepEqual(slice!.endpoints, [
      { addresses: ['192.0.2.10'], conditions: { ready: true } },
      { addresses: ['192.0.2.11'], conditions: { ready: false } },
    ])
    await new Promise((r) => setTimeout(r, 100))
    assert.deepEqual(await slicesOf('skipped'), [])
  })
})
