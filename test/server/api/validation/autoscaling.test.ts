/**
 * autoscaling validation, table-driven. Expected texts are the reference's
 * `pkg/apis/autoscaling/validation/validation.go`; defaults its `pkg/apis/autoscaling/v2/defaults.go`.
 */
import assert from 'node:assert/strict'
import { type Json, created, kindTable, updateErrors } from './groups-support.js'
import { strategyOf } from './support.js'

const v2 = strategyOf('autoscaling', 'v2', 'horizontalpodautoscalers')
const v1 = strategyOf('autoscaling', 'v1', 'horizontalpodautoscalers')
const SOURCE_TYPES = 'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"'

describe('validation/autoscaling: HorizontalPodAutoscaler (v2)', () => {
  const hpa = (): Json => ({
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } },
    },
  })
  const metric = (o: Json, m: Json) => (o.spec.metrics = [m])
  const target = (o: Json) => o.spec.metrics[0].resource.target
  const down = (o: Json) => o.spec.behavior.scaleDown
  const M = 'spec.metrics[0]'
  kindTable(v2, hpa, [
    // validateMetrics checks minReplicas 0 whatever the lower bound said.
    ['minReplicas 0 (HPAScaleToZero off)', (o) => (o.spec.minReplicas = 0), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1', 'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas']],
    ['maxReplicas 0', (o) => (o.spec.maxReplicas = 0), ['spec.maxReplicas: Invalid value: 0: must be greater than 0', 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`']],
    ['maxReplicas below minReplicas', (o) => (o.spec.minReplicas = 6), ['spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`']],
    ['a scale target without kind', (o) => delete o.spec.scaleTargetRef.kind, ['spec.scaleTargetRef.kind: Required value']],
    ['a scale target name with a slash', (o) => (o.spec.scaleTargetRef.name = 'a/b'), [`spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`]],
    ['an unknown metric type', (o) => (o.spec.metrics[0].type = 'Custom'), [`${M}.type: Unsupported value: "Custom": ${SOURCE_TYPES}`, `${M}.type: Unsupported value: "Custom": ${SOURCE_TYPES}`]],
    ['a metric without type', (o) => delete o.spec.metrics[0].type, [
      `${M}.type: Required value: must specify a metric source type`,
      `${M}.type: Unsupported value: "": ${SOURCE_TYPES}`,
      `${M}.type: Unsupported value: "": ${SOURCE_TYPES}`,
    ]],
    ['a Pods metric with only a resource source', (o) => (o.spec.metrics[0].type = 'Pods'), [`${M}.pods: Required value: must populate information for the given metric source`]],
    ['a Resource metric with a pods source too', (o) => (o.spec.metrics[0].pods = { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } }), [
      `${M}.pods: Forbidden: must populate the given metric source only`,
    ]],
    ['a utilization of 0', (o) => (target(o).averageUtilization = 0), [`${M}.resource.target.averageUtilization: Invalid value: 0: must be greater than 0`]],
    ['an unknown target type', (o) => (target(o).type = 'Percent'), [`${M}.resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue`]],
    ['a resource target with a utilization and an average value', (o) => (target(o).averageValue = '500m'), [`${M}.resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization`]],
    ['a resource target with neither', (o) => delete target(o).averageUtilization, [`${M}.resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization`]],
    ['a resource metric without name', (o) => delete o.spec.metrics[0].resource.name, [`${M}.resource.name: Required value: must specify a resource name`]],
    ['a Pods metric without averageValue', (o) => metric(o, { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue' } } }), [
      `${M}.pods.target.averageValue: Required value: must specify a positive target averageValue`,
    ]],
    ['a Pods metric name with a slash', (o) => metric(o, { type: 'Pods', pods: { metric: { name: 'a/b' }, target: { type: 'AverageValue', averageValue: '1' } } }), [
      `${M}.pods.metric.name: Invalid value: "a/b": may not contain '/'`,
    ]],
    ['an Object metric without kind or value', (o) => metric(o, { type: 'Object', object: { describedObject: { name: 'main' }, metric: { name: 'hits' }, target: { type: 'Value' } } }), [
      `${M}.object.describedObject.kind: Required value`,
      `${M}.object.target.averageValue: Required value: must set either a target value or averageValue`,
    ]],
    ['an Object metric without metric name', (o) => metric(o, { type: 'Object', object: { describedObject: { kind: 'Service', name: 'main' }, metric: {}, target: { type: 'Value', value: '10' } } }), [
      `${M}.object.metric.name: Required value: must specify a metric name`,
    ]],
    ['an External metric with a negative value', (o) => metric(o, { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '-1' } } }), [
      `${M}.external.target.value: Invalid value: "-1": must be positive`,
    ]],
    ['an External metric with a value and an average', (o) => metric(o, { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '30', averageValue: '0.5' } } }), [
      `${M}.external.target.value: Forbidden: may not set both a target value for metric and a per-pod target`,
    ]],
    ['a ContainerResource metric without container', (o) => metric(o, { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }), [
      `${M}.containerResource.container: Required value: must specify a container`,
    ]],
    ['a ContainerResource metric of a non-container resource', (o) => metric(o, { type: 'ContainerResource', containerResource: { name: 'disk', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } }), [
      `${M}.containerResource.name: Invalid value: "disk": must be a standard resource type or fully qualified`,
      `${M}.containerResource.name: Invalid value: "disk": must be a standard resource for containers`,
    ]],
    ['a stabilization window over an hour', (o) => (down(o).stabilizationWindowSeconds = 4000), ['spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600']],
    ['a negative stabilization window', (o) => (down(o).stabilizationWindowSeconds = -1), ['spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero']],
    ['an unknown selectPolicy', (o) => (down(o).selectPolicy = 'Average'), ['spec.behavior.scaleDown.selectPolicy: Unsupported value: "Average": supported values: "Disabled", "Max", "Min"']],
    ['an empty policy list', (o) => (down(o).policies = []), ['spec.behavior.scaleDown.policies: Required value: must specify at least one Policy']],
    ['a policy wrong in every field', (o) => (down(o).policies = [{ type: 'Nodes', value: 0, periodSeconds: 1801 }]), [
      'spec.behavior.scaleDown.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"',
      'spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800',
    ]],
    ['a policy period of 0', (o) => (down(o).policies[0].periodSeconds = 0), ['spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 0: must be greater than zero']],
    ['a negative tolerance', (o) => (down(o).tolerance = '-0.1'), ['spec.behavior.scaleDown.tolerance: Invalid value: "-100m": must be greater than or equal to zero']],
  ], it)

  it('defaults as autoscaling/v2: minReplicas 1, 80% CPU, the unset behavior rules', () => {
    const o = created(v2, { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, behavior: { scaleDown: { selectPolicy: 'Min' } } } }) as Json
    assert.equal(o.spec.minReplicas, 1)
    assert.deepEqual(o.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }])
    assert.deepEqual(o.spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
      selectPolicy: 'Max',
    })
    assert.deepEqual(o.spec.behavior.scaleDown, { selectPolicy: 'Min', stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] })
  })

  it('lets a stored minReplicas of 0 stay, with an Object or External metric only', () => {
    const zero = hpa()
    zero.spec.minReplicas = 0
    assert.deepEqual(updateErrors(v2, zero, (o) => (o.spec.maxReplicas = 4)), ['spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas'])
    const external = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } }
    assert.deepEqual(updateErrors(v2, zero, (o) => (o.spec.metrics = [external])), [])
    assert.deepEqual(updateErrors(v2, hpa(), (o) => (o.spec.minReplicas = 0)), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1', 'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas'])
  })

  it('checks the status counts on the status subresource', () => {
    assert.deepEqual(updateErrors(v2, hpa(), (o) => (o.status = { currentReplicas: -1, desiredReplicas: -2 }), 'status'), [
      'status.currentReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.desiredReplicas: Invalid value: -2: must be greater than or equal to 0',
    ])
  })
})

describe('validation/autoscaling: HorizontalPodAutoscaler (v1, validated in the internal form)', () => {
  const hpa = (): Json => ({ spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } })
  kindTable(v1, hpa, [
    ['a CPU target of 0', (o) => (o.spec.targetCPUUtilizationPercentage = 0), ['spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0']],
    ['minReplicas 0', (o) => (o.spec.minReplicas = 0), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1', 'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas']],
    ['maxReplicas 0 (minReplicas defaulted to 1)', (o) => (o.spec.maxReplicas = 0), ['spec.maxReplicas: Invalid value: 0: must be greater than 0', 'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`']],
    ['a scale target without name', (o) => delete o.spec.scaleTargetRef.name, ['spec.scaleTargetRef.name: Required value']],
    ['a scale target kind of ..', (o) => (o.spec.scaleTargetRef.kind = '..'), [`spec.scaleTargetRef.kind: Invalid value: "..": may not be '..'`]],
  ], it)

  it('accepts a v1 object without a CPU target, and validates updates in the internal form', () => {
    assert.deepEqual(updateErrors(v1, hpa(), (o) => delete o.spec.targetCPUUtilizationPercentage), [])
    assert.deepEqual(updateErrors(v1, hpa(), (o) => (o.spec.targetCPUUtilizationPercentage = -5)), ['spec.metrics[0].resource.target.averageUtilization: Invalid value: -5: must be greater than 0'])
  })
})
