/**
 * The ResourceQuota plugin and its evaluators against the cases of the reference's
 * plugin/pkg/admission/resourcequota/admission_test.go and pkg/quota/v1/evaluator/core's
 * tests; refusals are the format strings of its controller.go and pods.go filled with each
 * case's values. The last cases run the plugin in the default chain over a registry with the
 * quota controller: usage is written to status.used, the third pod of a 2-pod quota is refused.
 */
import assert from 'node:assert/strict'
import { QuotaError, QuotaRefusal, checkRequest } from '../../../src/server/admission/resourcequota/check-request.js'
import { limitedResourcesOf } from '../../../src/server/admission/resourcequota/config.js'
import { evaluatorFor, persistentVolumeClaimEvaluator, podEvaluator, serviceEvaluator } from '../../../src/server/admission/resourcequota/evaluators.js'
import { toJson } from '../../../src/server/admission/resourcequota/resource-list.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'
import { attributesFor } from './table-support.js'

type List = Record<string, string>
const compute = (cpu: string, memory: string): List => ({ ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) })

/** validPod: `n` containers foo-0 … with the same requests and limits. */
function validPod(name: string, n: number, requests: List, limits: List): KubeObject {
  const containers = Array.from({ length: n }, (_, i) => ({ name: `foo-${i}`, image: `foo:V${i}`, resources: { requests: { ...requests }, limits: { ...limits } } }))
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test' }, spec: { containers } }
}

function quota(name: string, hard: List, used: List | undefined, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'test', resourceVersion: '124' }, spec: { hard, ...spec }, status: { hard, ...(used ? { used } : {}) } }
}

/** The new used lists by quota name, or the refusal's message. */
function check(quotas: KubeObject[], object: KubeObject, over: { operation?: 'CREATE' | 'UPDATE'; resource?: string; oldObject?: KubeObject } = {}): Record<string, List> | string {
  const resource = over.resource ?? 'pods'
  const a = attributesFor({ namespace: 'test', name: object.metadata.name ?? '', resource, object, ...(over.operation ? { operation: over.operation } : {}), ...(over.oldObject ? { oldObject: over.oldObject } : {}) })
  try {
    const out = checkRequest(quotas, a, evaluatorFor('', resource), Date.now())
    return Object.fromEntries([...out].map(([i, used]) => [quotas[i]!.metadata.name!, toJson(used)]))
  } catch (err) {
    if (err instanceof QuotaRefusal) return err.message
    throw err
  }
}

const computeQuota = () => quota('quota', { cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' })

describe('admission: ResourceQuota (the request check)', () => {
  it('charges a pod below the limit (TestAdmitBelowQuotaLimit)', () => {
    assert.deepEqual(check([computeQuota()], validPod('allowed-pod', 1, compute('100m', '2Gi'), {})), { quota: { cpu: '1100m', memory: '52Gi', pods: '4' } })
  })

  it('refuses a pod over the limit, naming only what is exceeded (TestAdmitExceedQuotaLimit)', () => {
    assert.equal(check([computeQuota()], validPod('not-allowed-pod', 1, compute('3', '2Gi'), {})), 'exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3')
  })

  it('refuses the third pod of a quota of two', () => {
    assert.equal(check([quota('quota', { pods: '2' }, { pods: '2' })], validPod('p3', 1, {}, {})), 'exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2')
  })

  it('requires containers to state what a quota limits (TestAdmitEnforceQuotaConstraints)', () => {
    const q = quota('quota', { cpu: '3', memory: '100Gi', 'limits.memory': '200Gi', pods: '5' }, { cpu: '1', memory: '50Gi', 'limits.memory': '100Gi', pods: '3' })
    assert.equal(check([q], validPod('not-allowed-pod', 1, compute('100m', '2Gi'), compute('200m', ''))), 'failed quota: quota: must specify limits.memory for: foo-0')
    const q2 = quota('quota', { 'requests.cpu': '1', 'limits.cpu': '2', 'requests.memory': '1Gi', 'limits.memory': '2Gi' }, { 'requests.cpu': '0', 'limits.cpu': '0', 'requests.memory': '0', 'limits.memory': '0' })
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'qp1' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] } }
    assert.equal(check([q2], pod), 'failed quota: quota: must specify limits.cpu for: c; limits.memory for: c; requests.memory for: c')
  })

  it('leaves a pod alone in a namespace without quota (TestAdmitPodInNamespaceWithoutQuota)', () => {
    assert.deepEqual(check([], validPod('p', 1, compute('100m', '2Gi'), {})), {})
  })

  it('charges a terminating pod to the Terminating quota only (TestAdmitBelowTerminatingQuotaLimit)', () => {
    const hard = { cpu: '3', memory: '100Gi', pods: '5' }
    const used = { cpu: '1', memory: '50Gi', pods: '3' }
    const pod = validPod('allowed-pod', 1, compute('100m', '2Gi'), {})
    ;(pod.spec as Record<string, unknown>).activeDeadlineSeconds = 30
    const quotas = [quota('quota-non-terminating', hard, used, { scopes: ['NotTerminating'] }), quota('quota-terminating', hard, used, { scopes: ['Terminating'] })]
    assert.deepEqual(check(quotas, pod), { 'quota-terminating': { cpu: '1100m', memory: '52Gi', pods: '4' } })
  })

  it('charges a best-effort pod to the BestEffort quota only (TestAdmitBelowBestEffortQuotaLimit)', () => {
    const quotas = [quota('quota-besteffort', { pods: '5' }, { pods: '3' }, { scopes: ['BestEffort'] }), quota('quota-not-besteffort', { pods: '5' }, { pods: '3' }, { scopes: ['NotBestEffort'] })]
    assert.deepEqual(check(quotas, validPod('allowed-pod', 1, {}, {})), { 'quota-besteffort': { pods: '4' } })
    assert.deepEqual(check(quotas, validPod('burstable', 1, compute('100m', ''), {})), { 'quota-not-besteffort': { pods: '4' } })
  })

  it('matches the PriorityClass scope selector by In and NotIn', () => {
    const selector = (operator: string, values: string[]) => ({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator, values }] } })
    const quotas = [quota('high', { pods: '5' }, { pods: '0' }, selector('In', ['high'])), quota('not-high', { pods: '5' }, { pods: '0' }, selector('NotIn', ['high']))]
    const pod = validPod('p', 1, {}, {})
    ;(pod.spec as Record<string, unknown>).priorityClassName = 'high'
    assert.deepEqual(check(quotas, pod), { high: { pods: '1' } })
    assert.deepEqual(check(quotas, validPod('q', 1, {}, {})), { 'not-high': { pods: '1' } })
  })

  it('refuses while the quota has no usage yet (hasUsageStats)', () => {
    assert.equal(check([quota('quota', { pods: '5', cpu: '1' }, undefined)], validPod('p', 1, compute('100m', ''), {})), 'status unknown for quota: quota, resources: cpu,pods')
  })

  it('counts services, load balancers and node ports; an update is charged its growth', () => {
    const q = quota('quota', { services: '10', 'services.loadbalancers': '1', 'services.nodeports': '2' }, { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '0' })
    const svc = (type: string, ports: number): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'test', resourceVersion: '5' }, spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i })) } })
    assert.equal(check([q], svc('LoadBalancer', 1), { resource: 'services' }), 'exceeded quota: quota, requested: services.loadbalancers=1, used: services.loadbalancers=1, limited: services.loadbalancers=1')
    assert.deepEqual(check([q], svc('NodePort', 2), { resource: 'services' }), { quota: { services: '2', 'services.loadbalancers': '1', 'services.nodeports': '2' } })
    assert.deepEqual(check([q], svc('NodePort', 2), { resource: 'services', operation: 'UPDATE', oldObject: svc('ClusterIP', 2) }), { quota: { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' } })
  })

  it('counts claims and their storage per class', () => {
    const q = quota('quota', { persistentvolumeclaims: '5', 'requests.storage': '10Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '5Gi' }, { persistentvolumeclaims: '1', 'requests.storage': '4Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '4Gi' })
    const claim = (cls: string, size: string): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'test' }, spec: { storageClassName: cls, resources: { requests: { storage: size } } } })
    assert.equal(check([q], claim('gold', '2Gi'), { resource: 'persistentvolumeclaims' }), 'exceeded quota: quota, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=4Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=5Gi')
    assert.deepEqual(check([q], claim('silver', '2Gi'), { resource: 'persistentvolumeclaims' }), { quota: { 'gold.storageclass.storage.k8s.io/requests.storage': '4Gi', persistentvolumeclaims: '2', 'requests.storage': '6Gi' } })
  })

  it('counts objects by count/<resource>.<group> and the legacy names', () => {
    const q = quota('quota', { configmaps: '2', 'count/configmaps': '3' }, { configmaps: '2', 'count/configmaps': '2' })
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'test' } }
    assert.equal(check([q], cm, { resource: 'configmaps' }), 'exceeded quota: quota, requested: configmaps=1, used: configmaps=2, limited: configmaps=2')
    const apps = quota('quota', { 'count/deployments.apps': '1' }, { 'count/deployments.apps': '1' })
    const a = attributesFor({ namespace: 'test', name: 'd', group: 'apps', resource: 'deployments', kind: 'Deployment', object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } } })
    assert.throws(() => checkRequest([apps], a, evaluatorFor('apps', 'deployments'), Date.now()), { message: 'exceeded quota: quota, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1' })
  })
})

describe('admission: ResourceQuota (limitedResources of the configuration)', () => {
  const limited = (config: unknown) => limitedResourcesOf(config)
  const run = (quotas: KubeObject[], object: KubeObject, config: unknown): Record<string, List> | string => {
    try {
      const out = checkRequest(quotas, attributesFor({ namespace: 'test', name: object.metadata.name ?? '', object }), podEvaluator, Date.now(), limited(config))
      return Object.fromEntries([...out].map(([i, used]) => [quotas[i]!.metadata.name!, toJson(used)]))
    } catch (err) {
      if (err instanceof QuotaRefusal || err instanceof QuotaError) return err.message
      throw err
    }
  }
  const cpuLimited = { limitedResources: [{ resource: 'pods', matchContains: ['cpu'] }] }

  it('refuses consuming a limited resource without a quota (TestAdmitLimitedResourceNoQuota)', () => {
    assert.equal(run([], validPod('not-allowed-pod', 1, compute('3', '2Gi'), {}), cpuLimited), 'insufficient quota to consume: cpu,requests.cpu')
  })

  it('ignores resources the configuration does not name (TestAdmitLimitedResourceNoQuotaIgnoresNonMatchingResources)', () => {
    assert.deepEqual(run([], validPod('allowed-pod', 1, compute('3', '2Gi'), {}), { limitedResources: [{ resource: 'pods', matchContains: ['foo.com/gpu'] }] }), {})
  })

  it('admits it under a quota that covers it, and refuses under one that does not (TestAdmitLimitedResourceWithQuota, ...ThatDoesNotCover)', () => {
    const covering = quota('quota', { 'requests.cpu': '10' }, { 'requests.cpu': '1' })
    assert.deepEqual(run([covering], validPod('allowed-pod', 1, compute('3', '2Gi'), {}), { limitedResources: [{ resource: 'pods', matchContains: ['requests.cpu'] }] }), { quota: { 'requests.cpu': '4' } })
    const memoryOnly = quota('quota', { memory: '10Gi' }, { memory: '1Gi' })
    assert.equal(run([memoryOnly], validPod('not-allowed-pod', 1, compute('3', '2Gi'), {}), cpuLimited), 'insufficient quota to consume: cpu,requests.cpu')
  })

  it('refuses a pod in a limited scope without a quota of that scope (TestAdmitLimitedScopeWithCoverQuota)', () => {
    const config = { limitedResources: [{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] }] }
    const pod = validPod('p', 1, compute('3', '2Gi'), {})
    ;(pod.spec as Record<string, unknown>).priorityClassName = 'cluster-services'
    assert.equal(run([], pod, config), 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]')
    const covering = quota('quota', { pods: '10' }, { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } })
    assert.deepEqual(run([covering], pod, config), { quota: { pods: '2' } })
    assert.deepEqual(run([], validPod('other', 1, compute('3', '2Gi'), {}), config), {})
  })

  it('refuses a configuration entry without a resource (ValidateConfiguration)', () => {
    assert.throws(() => limited({ limitedResources: [{ matchContains: ['cpu'] }] }), { message: 'limitedResources[0].resource: Required value' })
    assert.deepEqual(limited({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' }), [])
  })
})

describe('admission: ResourceQuota (the evaluators)', () => {
  it('a terminal pod is counted only by count/pods (PodUsageFunc)', () => {
    const pod = validPod('done', 1, compute('1', '1Gi'), {})
    pod.status = { phase: 'Succeeded' }
    assert.deepEqual(toJson(podEvaluator.usage(pod, Date.now())), { 'count/pods': '1' })
  })

  it('a pod is charged requests as cpu and memory, and its limits and ephemeral storage', () => {
    const pod = validPod('p', 2, { cpu: '250m', memory: '1Gi', 'ephemeral-storage': '1Gi' }, { cpu: '500m', memory: '2Gi' })
    assert.deepEqual(toJson(podEvaluator.usage(pod, Date.now())), {
      'count/pods': '1',
      cpu: '500m',
      'ephemeral-storage': '2Gi',
      'limits.cpu': '1',
      'limits.memory': '4Gi',
      memory: '2Gi',
      pods: '1',
      'requests.cpu': '500m',
      'requests.ephemeral-storage': '2Gi',
      'requests.memory': '2Gi',
    })
  })

  it('handles only what can change usage', () => {
    assert.equal(podEvaluator.handles('UPDATE', ''), false)
    assert.equal(podEvaluator.handles('CREATE', ''), true)
    assert.equal(serviceEvaluator.handles('UPDATE', ''), true)
    assert.equal(persistentVolumeClaimEvaluator.handles('UPDATE', ''), true)
    assert.equal(evaluatorFor('', 'configmaps').handles('UPDATE', ''), false)
  })
})

describe('admission: ResourceQuota (in the chain, with the quota controller)', function () {
  this.timeout(30_000)
  let t: TestRegistry
  beforeEach(async () => {
    t = await openTestRegistry('quota-', ['default', 'test'])
  })
  afterEach(async () => {
    await t.close()
  })

  const stored = async () => (await t.registry.lookup('', 'v1', 'resourcequotas')!.get('test', 'quota')) as KubeObject & { status?: { hard?: List; used?: List } }
  async function untilUsed(expected: List): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const q = await stored()
      if (JSON.stringify(q.status?.used) === JSON.stringify(expected)) return
      await new Promise((r) => setTimeout(r, 20))
    }
    assert.deepEqual((await stored()).status?.used, expected)
  }
  const pod = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })

  it('counts pods into status.used and refuses the third of two; a dry run writes nothing; a delete is counted down', async () => {
    await t.registry.lookup('', 'v1', 'resourcequotas')!.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'quota', namespace: 'test' }, spec: { hard: { pods: '2' } } })
    await untilUsed({ pods: '0' })
    assert.deepEqual((await stored()).status?.hard, { pods: '2' })
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await pods.create(pod('p1'))
    await pods.create(pod('p2'), { dryRun: true })
    assert.deepEqual((await stored()).status?.used, { pods: '1' })
    await pods.create(pod('p2'))
    assert.deepEqual((await stored()).status?.used, { pods: '2' })
    await assert.rejects(pods.create(pod('p3')), { message: 'pods "p3" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2' })
    await pods.delete('test', 'p1', { gracePeriodSeconds: 0 })
    await untilUsed({ pods: '1' })
  })

  it('of two concurrent creates for the last pod, one is refused (the quota write is checked again on a conflict)', async () => {
    await t.registry.lookup('', 'v1', 'resourcequotas')!.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'quota', namespace: 'test' }, spec: { hard: { pods: '1' } } })
    await untilUsed({ pods: '0' })
    const pods = t.registry.lookup('', 'v1', 'pods')!
    const results = await Promise.allSettled([pods.create(pod('a')), pods.create(pod('b'))])
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!
    assert.match((refused.reason as Error).message, /^pods "[ab]" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1$/)
    assert.deepEqual((await stored()).status?.used, { pods: '1' })
  })

  it('counts custom resources by count/<resource>.<group>, refuses over it, and counts a delete down', async () => {
    const crds = t.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!
    await crds.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.stable.example.com' },
      spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    })
    const widgets = async () => (await t.registry.resolve('stable.example.com', 'v1', 'widgets'))!
    for (let i = 0; i < 100 && !(await t.registry.resolve('stable.example.com', 'v1', 'widgets')); i++) await new Promise((r) => setTimeout(r, 20))
    const widget = (name: string): KubeObject => ({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name, namespace: 'test' } })
    // One widget exists before the quota: the controller's first count must find it.
    await (await widgets()).create(widget('w0'))
    await t.registry.lookup('', 'v1', 'resourcequotas')!.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'quota', namespace: 'test' }, spec: { hard: { 'count/widgets.stable.example.com': '2' } } })
    await untilUsed({ 'count/widgets.stable.example.com': '1' })
    await (await widgets()).create(widget('w1'))
    assert.deepEqual((await stored()).status?.used, { 'count/widgets.stable.example.com': '2' })
    await assert.rejects((await widgets()).create(widget('w2')), {
      message: 'widgets.stable.example.com "w2" is forbidden: exceeded quota: quota, requested: count/widgets.stable.example.com=1, used: count/widgets.stable.example.com=2, limited: count/widgets.stable.example.com=2',
    })
    await (await widgets()).delete('test', 'w0')
    await untilUsed({ 'count/widgets.stable.example.com': '1' })
  })
})
