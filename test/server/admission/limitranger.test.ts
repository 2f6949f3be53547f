/**
 * The LimitRanger plugin against the cases of the reference's
 * plugin/pkg/admission/limitranger/admission_test.go; the messages are the format strings of
 * its admission.go filled with each case's values.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../src/server/admission/attributes.js'
import { LIMIT_RANGER_ANNOTATION, persistentVolumeClaimValidateLimitFunc, podMutateLimitFunc, podValidateLimitFunc } from '../../../src/server/admission/limitranger/limit-funcs.js'
import { LimitRanger } from '../../../src/server/admission/limitranger/limitranger.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

type List = Record<string, string>
const compute = (cpu: string, memory: string): List => ({ ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) })
const local = (storage: string): List => (storage ? { 'ephemeral-storage': storage } : {})
const storage = (value: string): List => (value ? { storage: value } : {})
const req = (requests: List, limits: List) => ({ requests: { ...requests }, limits: { ...limits } })

/** createLimitRange: one item of the type. */
function createLimitRange(type: string, min: List, max: List, defaultLimit: List, defaultRequest: List, maxLimitRequestRatio: List): KubeObject {
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'abc', namespace: 'test' }, spec: { limits: [{ type, min, max, default: defaultLimit, defaultRequest, maxLimitRequestRatio }] } }
}

/** validLimitRange and validLimitRangeNoDefaults. */
function validLimitRange(defaults = true): KubeObject {
  const container = { type: 'Container', max: compute('100m', '2Gi'), min: compute('25m', '1Mi'), ...(defaults ? { default: compute('75m', '10Mi'), defaultRequest: compute('50m', '5Mi') } : {}) }
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'abc', namespace: 'test' }, spec: { limits: [{ type: 'Pod', max: compute('200m', '4Gi'), min: compute('50m', '2Mi') }, container] } }
}

/** validPod: `n` containers foo-0 … with the same resources. */
function validPod(name: string, n: number, resources: { requests: List; limits: List }): KubeObject {
  const containers = Array.from({ length: n }, (_, i) => ({ name: `foo-${i}`, image: `foo:V${i}`, resources: structuredClone(resources) }))
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test' }, spec: { containers } }
}

/** validPodInit: init containers foo-0 … added. */
function validPodInit(pod: KubeObject, ...resources: Array<{ requests: List; limits: List }>): KubeObject {
  const spec = pod.spec as Record<string, any>
  spec.initContainers = [...(spec.initContainers ?? []), ...resources.map((r, i) => ({ name: `foo-${i}`, image: `foo:V${i}`, resources: structuredClone(r) }))]
  return pod
}

function withRestartableInitContainer(requests: List, limits: List, pod: KubeObject): KubeObject {
  const spec = pod.spec as Record<string, any>
  const n = (spec.initContainers ?? []).length
  spec.initContainers = [...(spec.initContainers ?? []), { name: `foo-${n}`, image: `foo:V${n}`, restartPolicy: 'Always', resources: { requests, limits } }]
  return pod
}

const C = 'Container'
const P = 'Pod'
const none: List = {}

/** TestPodLimitFunc's success cases. */
const successCases: Array<[KubeObject, KubeObject]> = [
  [validPod('ctr-min-cpu-request', 1, req(compute('100m', ''), none)), createLimitRange(C, compute('50m', ''), none, none, none, none)],
  [validPod('ctr-min-cpu-request-limit', 1, req(compute('100m', ''), compute('200m', ''))), createLimitRange(C, compute('50m', ''), none, none, none, none)],
  [validPod('ctr-min-memory-request', 1, req(compute('', '60Mi'), none)), createLimitRange(C, compute('', '50Mi'), none, none, none, none)],
  [validPod('ctr-min-memory-request-limit', 1, req(compute('', '60Mi'), compute('', '100Mi'))), createLimitRange(C, compute('', '50Mi'), none, none, none, none)],
  [validPod('ctr-max-cpu-request-limit', 1, req(compute('500m', ''), compute('1', ''))), createLimitRange(C, none, compute('2', ''), none, none, none)],
  [validPod('ctr-max-cpu-limit', 1, req(none, compute('1', ''))), createLimitRange(C, none, compute('2', ''), none, none, none)],
  [validPod('ctr-max-mem-request-limit', 1, req(compute('', '250Mi'), compute('', '500Mi'))), createLimitRange(C, none, compute('', '1Gi'), none, none, none)],
  [validPod('ctr-max-cpu-ratio', 1, req(compute('500m', ''), compute('750m', ''))), createLimitRange(C, none, none, none, none, compute('1.5', ''))],
  [validPod('ctr-max-mem-limit', 1, req(none, compute('', '500Mi'))), createLimitRange(C, none, compute('', '1Gi'), none, none, none)],
  [validPod('pod-min-cpu-request', 2, req(compute('75m', ''), none)), createLimitRange(P, compute('100m', ''), none, none, none, none)],
  [validPod('pod-min-cpu-request-limit', 2, req(compute('75m', ''), compute('200m', ''))), createLimitRange(P, compute('100m', ''), none, none, none, none)],
  [validPod('pod-min-memory-request', 2, req(compute('', '60Mi'), none)), createLimitRange(P, compute('', '100Mi'), none, none, none, none)],
  [validPod('pod-min-memory-request-limit', 2, req(compute('', '60Mi'), compute('', '100Mi'))), createLimitRange(P, compute('', '100Mi'), none, none, none, none)],
  [validPodInit(validPod('pod-init-min-memory-request', 2, req(compute('', '60Mi'), none)), req(compute('', '100Mi'), none)), createLimitRange(P, compute('', '100Mi'), none, none, none, none)],
  [validPodInit(validPod('pod-init-min-memory-request-limit', 2, req(compute('', '60Mi'), compute('', '100Mi'))), req(compute('', '80Mi'), compute('', '100Mi'))), createLimitRange(P, compute('', '100Mi'), none, none, none, none)],
  [validPod('pod-max-cpu-request-limit', 2, req(compute('500m', ''), compute('1', ''))), createLimitRange(P, none, compute('2', ''), none, none, none)],
  [validPod('pod-max-cpu-limit', 2, req(none, compute('1', ''))), createLimitRange(P, none, compute('2', ''), none, none, none)],
  [validPodInit(validPod('pod-init-max-cpu-request-limit', 2, req(compute('500m', ''), compute('1', ''))), req(compute('1', ''), compute('2', '')), req(compute('1', ''), compute('1', ''))), createLimitRange(P, none, compute('2', ''), none, none, none)],
  [validPodInit(validPod('pod-init-max-cpu-limit', 2, req(none, compute('1', ''))), req(none, compute('2', '')), req(none, compute('2', ''))), createLimitRange(P, none, compute('2', ''), none, none, none)],
  [validPod('pod-max-mem-request-limit', 2, req(compute('', '250Mi'), compute('', '500Mi'))), createLimitRange(P, none, compute('', '1Gi'), none, none, none)],
  [validPod('pod-max-mem-limit', 2, req(none, compute('', '500Mi'))), createLimitRange(P, none, compute('', '1Gi'), none, none, none)],
  [validPod('pod-max-mem-ratio', 3, req(compute('', '300Mi'), compute('', '450Mi'))), createLimitRange(P, none, compute('', '2Gi'), none, none, compute('', '1.5'))],
  [validPod('ctr-1-min-local-ephemeral-storage-request', 1, req(local('60Mi'), none)), createLimitRange(C, local('50Mi'), none, none, none, none)],
  [validPod('ctr-1-min-local-ephemeral-storage-request-limit', 1, req(local('60Mi'), local('100Mi'))), createLimitRange(C, local('50Mi'), none, none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-request-limit', 1, req(local('250Mi'), local('500Mi'))), createLimitRange(C, none, local('1Gi'), none, none, none)],
  [validPod('ctr-1-max-local-ephemeral-storage-limit', 1, req(none, local('500Mi'))), createLimitRange(C, none, local('1Gi'), none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request', 2, req(local('60Mi'), none)), createLimitRange(C, local('50Mi'), none, none, none, none)],
  [validPod('ctr-2-min-local-ephemeral-storage-request-limit', 2, req(local('60Mi'), local('100Mi'))), createLimitRange(C, local('50Mi'), none, none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-request-limit', 2, req(local('250Mi'), local('500Mi'))), createLimitRange(C, none, local('600Mi'), none, none, none)],
  [validPod('ctr-2-max-local-ephemeral-storage-limit', 2, req(none, local('500Mi'))), createLimitRange(C, none, local('600Mi'), none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request', 2, req(local('60Mi'), none)), createLimitRange(P, local('100Mi'), none, none, none, none)],
  [validPod('pod-min-local-ephemeral-storage-request-limit', 2, req(local('60Mi'), local('100Mi'))), createLimitRange(P, local('100Mi'), none, none, none, none)],
  [validPodInit(validPod('pod-init-min-local-ephemeral-storage-request', 2, req(local('60Mi'), none)), req(local('100Mi'), none)), createLimitRange(P, local('100Mi'), none, none, none, none)],
  [validPodInit(validPod('pod-init-min-local-ephemeral-storage-request-limit', 2, req(local('60Mi'), local('100Mi'))), req(local('80Mi'), local('100Mi'))), createLimitRange(P, local('100Mi'), none, none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-request-limit', 2, req(local('250Mi'), local('500Mi'))), createLimitRange(P, none, local('1Gi'), none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-limit', 2, req(none, local('500Mi'))), createLimitRange(P, none, local('1Gi'), none, none, none)],
  [validPod('pod-max-local-ephemeral-storage-ratio', 3, req(local('300Mi'), local('450Mi'))), createLimitRange(P, none, local('2Gi'), none, none, local('1.5'))],
]

/**
 * TestPodLimitFunc's error cases, each with its message: the reference's format string
 * (minConstraint, maxConstraint, limitRequestRatioConstraint) over the case's values, and
 * NewAggregate's brackets when several containers break it differently.
 */
const errorCases: Array<[KubeObject, KubeObject, string]> = [
  [validPod('ctr-min-cpu-request', 1, req(compute('40m', ''), none)), createLimitRange(C, compute('50m', ''), none, none, none, none), 'minimum cpu usage per Container is 50m, but request is 40m'],
  [validPod('ctr-min-cpu-request-limit', 1, req(compute('40m', ''), compute('200m', ''))), createLimitRange(C, compute('50m', ''), none, none, none, none), 'minimum cpu usage per Container is 50m, but request is 40m'],
  [validPod('ctr-min-cpu-no-request-limit', 1, req(none, none)), createLimitRange(C, compute('50m', ''), none, none, none, none), 'minimum cpu usage per Container is 50m.  No request is specified'],
  [validPod('ctr-min-memory-request', 1, req(compute('', '40Mi'), none)), createLimitRange(C, compute('', '50Mi'), none, none, none, none), 'minimum memory usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-min-memory-request-limit', 1, req(compute('', '40Mi'), compute('', '100Mi'))), createLimitRange(C, compute('', '50Mi'), none, none, none, none), 'minimum memory usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-min-memory-no-request-limit', 1, req(none, none)), createLimitRange(C, compute('', '50Mi'), none, none, none, none), 'minimum memory usage per Container is 50Mi.  No request is specified'],
  [validPod('ctr-max-cpu-request-limit', 1, req(compute('500m', ''), compute('2500m', ''))), createLimitRange(C, none, compute('2', ''), none, none, none), 'maximum cpu usage per Container is 2, but limit is 2500m'],
  [validPod('ctr-max-cpu-limit', 1, req(none, compute('2500m', ''))), createLimitRange(C, none, compute('2', ''), none, none, none), 'maximum cpu usage per Container is 2, but limit is 2500m'],
  [validPod('ctr-max-cpu-no-request-limit', 1, req(none, none)), createLimitRange(C, none, compute('2', ''), none, none, none), 'maximum cpu usage per Container is 2.  No limit is specified'],
  [validPod('ctr-max-cpu-ratio', 1, req(compute('1250m', ''), compute('2500m', ''))), createLimitRange(C, none, none, none, none, compute('1', '')), 'cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000'],
  [validPod('ctr-max-mem-request-limit', 1, req(compute('', '250Mi'), compute('', '2Gi'))), createLimitRange(C, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-max-mem-limit', 1, req(none, compute('', '2Gi'))), createLimitRange(C, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-max-mem-no-request-limit', 1, req(none, none)), createLimitRange(C, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Container is 1Gi.  No limit is specified'],
  [validPod('pod-min-cpu-request', 1, req(compute('75m', ''), none)), createLimitRange(P, compute('100m', ''), none, none, none, none), 'minimum cpu usage per Pod is 100m, but request is 75m'],
  [validPod('pod-min-cpu-request-limit', 1, req(compute('75m', ''), compute('200m', ''))), createLimitRange(P, compute('100m', ''), none, none, none, none), 'minimum cpu usage per Pod is 100m, but request is 75m'],
  [validPod('pod-min-memory-request', 1, req(compute('', '60Mi'), none)), createLimitRange(P, compute('', '100Mi'), none, none, none, none), 'minimum memory usage per Pod is 100Mi, but request is 60Mi'],
  [validPod('pod-min-memory-request-limit', 1, req(compute('', '60Mi'), compute('', '100Mi'))), createLimitRange(P, compute('', '100Mi'), none, none, none, none), 'minimum memory usage per Pod is 100Mi, but request is 60Mi'],
  [validPod('pod-max-cpu-request-limit', 3, req(compute('500m', ''), compute('1', ''))), createLimitRange(P, none, compute('2', ''), none, none, none), 'maximum cpu usage per Pod is 2, but limit is 3'],
  [validPod('pod-max-cpu-limit', 3, req(none, compute('1', ''))), createLimitRange(P, none, compute('2', ''), none, none, none), 'maximum cpu usage per Pod is 2, but limit is 3'],
  [validPod('pod-max-mem-request-limit', 3, req(compute('', '250Mi'), compute('', '500Mi'))), createLimitRange(P, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Pod is 1Gi, but limit is 1500Mi'],
  [validPod('pod-max-mem-limit', 3, req(none, compute('', '500Mi'))), createLimitRange(P, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Pod is 1Gi, but limit is 1500Mi'],
  [validPodInit(validPod('pod-init-max-mem-limit', 1, req(none, compute('', '500Mi'))), req(none, compute('', '1.5Gi'))), createLimitRange(P, none, compute('', '1Gi'), none, none, none), 'maximum memory usage per Pod is 1Gi, but limit is 1536Mi'],
  [validPod('pod-max-mem-ratio', 3, req(compute('', '250Mi'), compute('', '500Mi'))), createLimitRange(P, none, compute('', '2Gi'), none, none, compute('', '1.5')), 'memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000'],
  [validPod('ctr-1-min-local-ephemeral-storage-request', 1, req(local('40Mi'), none)), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-1-min-local-ephemeral-storage-request-limit', 1, req(local('40Mi'), local('100Mi'))), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-1-min-local-ephemeral-storage-no-request-limit', 1, req(none, none)), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi.  No request is specified'],
  [validPod('ctr-1-max-local-ephemeral-storage-request-limit', 1, req(local('250Mi'), local('2Gi'))), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-1-max-local-ephemeral-storage-limit', 1, req(none, local('2Gi'))), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-1-max-local-ephemeral-storage-no-request-limit', 1, req(none, none)), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi.  No limit is specified'],
  // Two containers breaking the same way: NewAggregate keeps the message once.
  [validPod('ctr-2-min-local-ephemeral-storage-request', 2, req(local('40Mi'), none)), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-2-min-local-ephemeral-storage-request-limit', 2, req(local('40Mi'), local('100Mi'))), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-2-min-local-ephemeral-storage-no-request-limit', 2, req(none, none)), createLimitRange(C, local('50Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Container is 50Mi.  No request is specified'],
  [validPod('ctr-2-max-local-ephemeral-storage-request-limit', 2, req(local('250Mi'), local('2Gi'))), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-2-max-local-ephemeral-storage-limit', 2, req(none, local('2Gi'))), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('ctr-2-max-local-ephemeral-storage-no-request-limit', 2, req(none, none)), createLimitRange(C, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Container is 1Gi.  No limit is specified'],
  [validPod('pod-min-local-ephemeral-storage-request', 1, req(local('60Mi'), none)), createLimitRange(P, local('100Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Pod is 100Mi, but request is 60Mi'],
  [validPod('pod-min-local-ephemeral-storage-request-limit', 1, req(local('60Mi'), local('100Mi'))), createLimitRange(P, local('100Mi'), none, none, none, none), 'minimum ephemeral-storage usage per Pod is 100Mi, but request is 60Mi'],
  [validPod('pod-max-local-ephemeral-storage-request-limit', 3, req(local('250Mi'), local('500Mi'))), createLimitRange(P, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1500Mi'],
  [validPod('pod-max-local-ephemeral-storage-limit', 3, req(none, local('500Mi'))), createLimitRange(P, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1500Mi'],
  [validPodInit(validPod('pod-init-max-local-ephemeral-storage-limit', 1, req(none, local('500Mi'))), req(none, local('1.5Gi'))), createLimitRange(P, none, local('1Gi'), none, none, none), 'maximum ephemeral-storage usage per Pod is 1Gi, but limit is 1536Mi'],
  [validPod('pod-max-local-ephemeral-storage-ratio', 3, req(local('250Mi'), local('500Mi'))), createLimitRange(P, none, local('2Gi'), none, none, local('1.5')), 'ephemeral-storage max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000'],
  [
    withRestartableInitContainer(compute('1500m', ''), none, validPod('ctr-max-cpu-limit-restartable-init-container', 1, req(compute('1000m', ''), compute('1500m', '')))),
    createLimitRange(P, none, compute('2', ''), none, none, none),
    // The sidecar's request adds to the container's: 1 + 1.5; its missing limit adds nothing.
    'maximum cpu usage per Pod is 2, but request is 2500m',
  ],
]

describe('admission: LimitRanger (plugin/pkg/admission/limitranger)', () => {
  it('merges the defaults into containers and init containers, with the annotation (TestMergePodResourceRequirements)', () => {
    const limitRange = validLimitRange()
    const empty = validPod('empty-resources', 1, req(none, none))
    podMutateLimitFunc(limitRange, empty)
    assert.deepEqual((empty.spec as any).containers[0].resources, { requests: compute('50m', '5Mi'), limits: compute('75m', '10Mi') })
    assert.equal(empty.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0')

    // As the reference test's Go maps, the container and the init container share one
    // requirements object: filled through the container, the init container has nothing left.
    const input = req(compute('', '512Mi'), none)
    const some: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'limit-memory', namespace: 'test' }, spec: { containers: [{ name: 'foo-0', image: 'foo:V0', resources: input }], initContainers: [{ name: 'foo-0', image: 'foo:V0', resources: input }] } }
    podMutateLimitFunc(limitRange, some)
    const expected = { requests: { memory: '512Mi', cpu: '50m' }, limits: compute('75m', '10Mi') }
    assert.deepEqual((some.spec as any).containers[0].resources, expected)
    assert.deepEqual((some.spec as any).initContainers[0].resources, expected)
    assert.equal(some.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0')
    // Apart, each gets its own defaults and its own part of the annotation.
    const apart = validPodInit(validPod('limit-memory', 1, req(compute('', '512Mi'), none)), req(compute('', '512Mi'), none))
    podMutateLimitFunc(limitRange, apart)
    assert.match(apart.metadata.annotations?.[LIMIT_RANGER_ANNOTATION] ?? '', /; cpu request for init container foo-0; cpu, memory limit for init container foo-0$/)

    const all = validPodInit(validPod('limit-memory', 1, req(compute('100m', '512Mi'), compute('200m', '1G'))), req(compute('200m', '1G'), compute('400m', '2G')))
    podMutateLimitFunc(limitRange, all)
    assert.deepEqual((all.spec as any).containers[0].resources, req(compute('100m', '512Mi'), compute('200m', '1G')))
    assert.deepEqual((all.spec as any).initContainers[0].resources, req(compute('200m', '1G'), compute('400m', '2G')))
    assert.equal(all.metadata.annotations, undefined)
  })

  it('applies the defaults to containers and init containers (TestPodLimitFuncApplyDefault)', () => {
    const pod = validPodInit(validPod('foo', 1, req(none, none)), req(none, none))
    podMutateLimitFunc(validLimitRange(), pod)
    for (const c of [...(pod.spec as any).containers, ...(pod.spec as any).initContainers]) {
      assert.deepEqual(c.resources, { limits: { cpu: '75m', memory: '10Mi' }, requests: { cpu: '50m', memory: '5Mi' } })
    }
  })

  it('admits the success cases of TestPodLimitFunc', () => {
    for (const [pod, limitRange] of successCases) {
      const p = structuredClone(pod)
      podMutateLimitFunc(limitRange, p)
      assert.equal(podValidateLimitFunc(limitRange, p, true), undefined, p.metadata.name)
    }
  })

  it('refuses the error cases of TestPodLimitFunc, each with its message', () => {
    for (const [pod, limitRange, message] of errorCases) {
      const p = structuredClone(pod)
      podMutateLimitFunc(limitRange, p)
      assert.equal(podValidateLimitFunc(limitRange, p, true), message, p.metadata.name)
    }
  })

  it('aggregates different breaches in brackets, and pod-level resources count when PodLevelResources is on', () => {
    const limitRange = createLimitRange(C, none, compute('500m', '500Mi'), none, none, none)
    const both = validPod('x', 1, req(none, compute('1', '1Gi')))
    assert.equal(podValidateLimitFunc(limitRange, both, true), '[maximum cpu usage per Container is 500m, but limit is 1, maximum memory usage per Container is 500Mi, but limit is 1Gi]')
    const podLevel = validPod('pod-level', 2, req(compute('100m', ''), compute('100m', '')))
    ;(podLevel.spec as any).resources = { requests: { cpu: '1' }, limits: { cpu: '1' } }
    const podMax = createLimitRange(P, none, compute('500m', ''), none, none, none)
    assert.equal(podValidateLimitFunc(podMax, podLevel, true), 'maximum cpu usage per Pod is 500m, but limit is 1')
    assert.equal(podValidateLimitFunc(podMax, podLevel, false), undefined)
  })

  it('claims: min and max over the requests (TestPersistentVolumeClaimLimitFunc)', () => {
    const pvc = (name: string, requests: List): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'test' }, spec: { resources: { requests } } })
    const PVC = 'PersistentVolumeClaim'
    for (const [claim, limitRange] of [
      [pvc('pvc-is-min-storage-request', storage('1Gi')), createLimitRange(PVC, storage('1Gi'), none, none, none, none)],
      [pvc('pvc-is-max-storage-request', storage('1Gi')), createLimitRange(PVC, none, storage('1Gi'), none, none, none)],
      [pvc('pvc-no-minmax-storage-request', storage('100Gi')), createLimitRange(PVC, storage(''), storage(''), none, none, none)],
      [pvc('pvc-within-minmax-storage-request', storage('5Gi')), createLimitRange(PVC, storage('1Gi'), storage('10Gi'), none, none, none)],
    ] as const) {
      assert.equal(persistentVolumeClaimValidateLimitFunc(limitRange, claim), undefined, claim.metadata.name)
    }
    assert.equal(persistentVolumeClaimValidateLimitFunc(createLimitRange(PVC, storage('1Gi'), none, none, none, none), pvc('pvc-below-min-storage-request', storage('500Mi'))), 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi')
    assert.equal(persistentVolumeClaimValidateLimitFunc(createLimitRange(PVC, storage('1Gi'), storage('1Gi'), none, none, none), pvc('pvc-exceeds-max-storage-request', storage('100Gi'))), 'maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Gi')
  })

  describe('the plugin over a registry', () => {
    let t: TestRegistry
    let plugin: LimitRanger
    const attributes = (object: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subresource: '',
      namespace: 'test',
      name: object.metadata.name ?? '',
      object,
      dryRun: false,
      ...over,
    })
    beforeEach(async () => {
      t = await openTestRegistry('admission-limitranger-', ['test', 'other'])
      plugin = new LimitRanger({ stores: () => t.registry, config: {}, log: () => {} })
      await t.registry.lookup('', 'v1', 'limitranges')!.create(validLimitRange(false))
    })
    afterEach(async () => {
      plugin.stop()
      await t.close()
    })

    it('refuses a created pod without limits with a 403; ignores updates, subresources and pods being deleted (TestLimitRangerAdmitPod)', async () => {
      const pod = validPod('testPod', 1, req(none, none))
      await plugin.admit(attributes(pod))
      let refused: unknown
      await plugin.validate(attributes(pod)).catch((err: unknown) => (refused = err))
      assert.ok(refused instanceof ApiError)
      assert.equal(refused.code, 403)
      assert.equal(refused.status.reason, 'Forbidden')
      // The Pod item first, then the Container item, each min before max (the reference ranges over maps).
      assert.match(refused.message, /^pods "testPod" is forbidden: \[minimum cpu usage per Pod is 50m\.  No request is specified, /)
      assert.ok(refused.message.includes('maximum cpu usage per Container is 100m.  No limit is specified'))
      await plugin.validate(attributes(pod, { operation: 'UPDATE' }))
      await plugin.validate(attributes(pod, { operation: 'UPDATE', subresource: 'status' }))
      const terminating = validPod('terminatingPod', 1, req(none, none))
      terminating.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'
      await plugin.validate(attributes(terminating, { operation: 'UPDATE', oldObject: terminating }))
      // Another namespace has no LimitRange.
      await plugin.validate(attributes(validPod('elsewhere', 1, req(none, none)), { namespace: 'other' }))
    })

    it('through the store: defaults filled in with the annotation; a limit over the max is refused', async () => {
      await t.registry.lookup('', 'v1', 'limitranges')!.create({
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'cpu', namespace: 'other' },
        spec: { limits: [{ type: 'Container', max: { cpu: '500m' }, default: { cpu: '200m' }, defaultRequest: { cpu: '100m' } }] },
      })
      const pods = t.registry.lookup('', 'v1', 'pods')!
      const created = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nginx', namespace: 'other' }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } })
      assert.deepEqual((created.spec as any).containers[0].resources, { limits: { cpu: '200m' }, requests: { cpu: '100m' } })
      assert.equal(created.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu request for container nginx; cpu limit for container nginx')
      let refused: unknown
      await pods
        .create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', namespace: 'other' }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: { limits: { cpu: '1' } } }] } })
        .catch((err: unknown) => (refused = err))
      assert.ok(refused instanceof ApiError)
      assert.equal(refused.code, 403)
      assert.equal(refused.message, 'pods "big" is forbidden: maximum cpu usage per Container is 500m, but limit is 1')
    })
  })
})
