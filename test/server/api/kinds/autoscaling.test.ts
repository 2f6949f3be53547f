import assert from 'node:assert/strict'
import { v1ToV2, v2ToV1 } from '../../../../src/server/api/kinds/autoscaling.js'
import type { Registry } from '../../../../src/server/api/registry/registry.js'
import { type TestRegistry, openTestRegistry } from '../support.js'

describe('api: HorizontalPodAutoscalers in autoscaling/v1 and v2, stored as v2', () => {
  let t: TestRegistry
  let registry: Registry
  beforeEach(async () => {
    t = await openTestRegistry('api-hpa-')
    registry = t.registry
  })
  afterEach(async () => {
    await t.close()
  })

  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }

  it('v1 to v2 and back: the CPU target is a Resource metric, the rest travels in the reference annotations', () => {
    const v2 = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', annotations: { keep: 'me' } },
      spec: {
        scaleTargetRef: ref,
        minReplicas: 2,
        maxReplicas: 9,
        metrics: [
          { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
      status: { currentReplicas: 3, desiredReplicas: 4, conditions: [{ type: 'AbleToScale', status: 'True' }] },
    }
    const v1 = v2ToV1(structuredClone(v2))
    assert.equal(v1.apiVersion, 'autoscaling/v1')
    assert.deepEqual(v1.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 9, targetCPUUtilizationPercentage: 70 })
    assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 4 })
    const annotations = v1.metadata.annotations!
    assert.equal(annotations.keep, 'me')
    assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics']!), [v2.spec.metrics[0]])
    assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/behavior']!), v2.spec.behavior)
    assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/conditions']!), v2.status.conditions)
    // Back to v2: the annotations are consumed; the CPU metric comes first, as v1 carries it.
    const back = v1ToV2(v1)
    assert.deepEqual(back.metadata.annotations, { keep: 'me' })
    assert.deepEqual(back.spec, { ...v2.spec, metrics: [v2.spec.metrics[1], v2.spec.metrics[0]] })
    assert.deepEqual(back.status, v2.status)
  })

  it('one object, two versions: created as v1, read as v2 with v2 defaults; created as v2, read as v1', async () => {
    const v1 = registry.lookup('autoscaling', 'v1', 'horizontalpodautoscalers')!
    const v2 = registry.lookup('autoscaling', 'v2', 'horizontalpodautoscalers')!
    const created = await v1.create({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'a', namespace: 'default' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } })
    assert.equal(created.apiVersion, 'autoscaling/v1')
    assert.equal((created.spec as { minReplicas: number }).minReplicas, 1)
    const asV2 = await v2.get('default', 'a')
    assert.equal(asV2.apiVersion, 'autoscaling/v2')
    assert.deepEqual((asV2.spec as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }])
    assert.equal(asV2.metadata.resourceVersion, created.metadata.resourceVersion)
    await v2.create({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'b', namespace: 'default' },
      spec: { scaleTargetRef: ref, maxReplicas: 4, behavior: { scaleUp: { stabilizationWindowSeconds: 5 } } },
    })
    const b2 = await v2.get('default', 'b')
    const behavior = (b2.spec as { behavior: Record<string, Record<string, unknown>> }).behavior
    // GenerateHPAScaleUpRules / ScaleDownRules fill what the client left out.
    assert.deepEqual(behavior.scaleUp, { stabilizationWindowSeconds: 5, policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }], selectPolicy: 'Max' })
    assert.deepEqual(behavior.scaleDown, { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], selectPolicy: 'Max' })
    const b1 = await v1.get('default', 'b')
    assert.equal((b1.spec as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage, 80)
    // Both lists show both objects.
    assert.deepEqual((await v1.list()).items.map((o) => o.metadata.name), ['a', 'b'])
    assert.deepEqual((await v2.list()).items.map((o) => o.apiVersion), ['autoscaling/v2', 'autoscaling/v2'])
  })
})
