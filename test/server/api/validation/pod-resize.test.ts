/**
 * The pods/resize subresource's validation (the reference's ValidatePodResize in
 * `pkg/apis/core/validation/validation.go`; texts also as its `validation_test.go` and the
 * conformance test `test/e2e/common/node/pod_resize.go` expect them), table-driven, and once
 * through the store, which keeps only the containers' resources and resize policies of a
 * resize body.
 */
import assert from 'node:assert/strict'
import { ApiError } from '../../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../support.js'
import { type Json, strategyOf, updateTable } from './groups-support.js'

const resources = () => ({ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } })
const pod = (): Json => ({
  metadata: { name: 'web' },
  spec: {
    initContainers: [
      { name: 'setup', image: 'busybox', resources: resources() },
      { name: 'proxy', image: 'envoy', restartPolicy: 'Always', resources: resources() },
    ],
    containers: [{ name: 'c', image: 'nginx', resources: resources(), resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }],
  },
})
const c0 = (o: Json) => o.spec.containers[0]

describe('validation/core: ValidatePodResize (pods/resize)', () => {
  const strategy = strategyOf('', 'pods')
  updateTable(strategy, pod, [
    ['a cpu request raised', (o) => (c0(o).resources.requests.cpu = '150m'), []],
    ['the resize policy changed', (o) => (c0(o).resizePolicy = [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }]), []],
    ['a sidecar container resized', (o) => (o.spec.initContainers[1].resources.limits.cpu = '300m'), []],
    ['a memory limit removed', (o) => delete c0(o).resources.limits.memory, ['spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed']],
    ['memory request and limit removed', (o) => (delete c0(o).resources.limits.memory, delete c0(o).resources.requests.memory), [
      'spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed',
      'spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed',
    ]],
    ['an ephemeral-storage limit added', (o) => (c0(o).resources.limits['ephemeral-storage'] = '1Gi'), ['spec: Forbidden: only cpu and memory resources are mutable']],
    ['the image changed', (o) => (c0(o).image = 'nginx:2'), ['spec: Forbidden: only cpu and memory resources are mutable']],
    ['a change to another pod field', (o) => (o.spec.hostname = 'other'), ['spec: Forbidden: only cpu and memory resources are mutable']],
    ['requests made equal to limits everywhere (Burstable to Guaranteed)', (o) => {
      for (const c of [...o.spec.initContainers, ...o.spec.containers]) c.resources.requests = { ...c.resources.limits }
    }, ['spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing', 'spec: Forbidden: resources for non-sidecar init containers are immutable']],
    ['a request above its limit', (o) => (c0(o).resources.requests.cpu = '300m'), ['spec.containers[0].resources.requests: Invalid value: "300m": must be less than or equal to cpu limit of 200m']],
    ['a container added', (o) => o.spec.containers.push({ name: 'd', image: 'nginx' }), ['spec.containers: Forbidden: containers may not be added or removed on resize']],
    ['a container renamed', (o) => (c0(o).name = 'main'), ['spec.containers[0].name: Forbidden: containers may not be renamed or reordered on resize']],
    ['an init container resized', (o) => (o.spec.initContainers[0].resources.limits.cpu = '300m'), ['spec: Forbidden: resources for non-sidecar init containers are immutable']],
    ['a sidecar given ephemeral storage', (o) => (o.spec.initContainers[1].resources.requests['ephemeral-storage'] = '1Gi'), ['spec: Forbidden: only cpu and memory resources for sidecar containers are mutable']],
  ], it, 'resize')
  updateTable(strategy, () => ({ ...pod(), metadata: { name: 'web', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { ...pod().spec, nodeName: 'node-1' } }), [
    ['a static pod', (o) => (c0(o).resources.requests.cpu = '150m'), ['[]: Forbidden: static pods cannot be resized']],
  ], it, 'resize')
  updateTable(strategy, () => ({ metadata: { name: 'win' }, spec: { os: { name: 'windows' }, containers: [{ name: 'c', image: 'iis', resources: resources() }] } }), [
    ['a Windows pod', (o) => (c0(o).resources.requests.cpu = '150m'), ['[]: Forbidden: windows pods cannot be resized']],
  ], it, 'resize')
})

describe('validation: pods/resize through the store', () => {
  let t: TestRegistry
  before(async () => {
    t = await openTestRegistry('api-resize-')
  })
  after(async () => {
    await t.close()
  })

  it('resizes cpu; a change to another resource is the reference 422; other fields of the body are ignored', async () => {
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx', resources: resources() }] } })
    const resized = await pods.update('default', 'p', (cur) => {
      const next = structuredClone(cur) as Json
      next.spec.containers[0].resources.requests.cpu = '150m'
      next.spec.containers[0].image = 'ignored'
      return next as typeof cur
    }, { subresource: 'resize' })
    const c = (resized.spec as Json).containers[0]
    assert.deepEqual([c.resources.requests.cpu, c.image], ['150m', 'nginx'])
    await assert.rejects(
      pods.update('default', 'p', (cur) => {
        const next = structuredClone(cur) as Json
        next.spec.containers[0].resources.limits['ephemeral-storage'] = '1Gi'
        return next as typeof cur
      }, { subresource: 'resize' }),
      (e: unknown) => e instanceof ApiError && e.status.code === 422 && e.status.message === 'Pod "p" is invalid: spec: Forbidden: only cpu and memory resources are mutable',
    )
  })
})
