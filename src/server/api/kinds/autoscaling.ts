/**
 * autoscaling HorizontalPodAutoscalers, served as v2 and v1 and stored as v2 (the reference's
 * storage version). v1 carries only the CPU target; what v2 has beyond it travels through v1
 * in the reference's `autoscaling.alpha.kubernetes.io/*` annotations, so a v1 round trip keeps
 * it. Defaulting as pkg/apis/autoscaling/v1 and v2 defaults.go; validation (validation/autoscaling.ts)
 * of the v2 form, which is the reference's internal one; Table as the reference's printer.
 */
import type { KubeObject } from '../registry/object.js'
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatusUpdate, validateHorizontalPodAutoscalerUpdate } from '../validation/autoscaling.js'
import type { StorageVersion } from '../registry/strategy.js'
import { AGE_COLUMN, NAME_COLUMN, type TableColumns, age } from '../table.js'
import type { KindOverrides, KindTable } from './kind.js'
import { type Obj, arr, col, num, obj, str } from './values.js'

const V2 = 'autoscaling/v2'
const KIND = 'HorizontalPodAutoscaler'
const DEFAULT_CPU_UTILIZATION = 80

/** The annotations that carry v2-only fields through v1, as the reference's conversion. */
const ANNOTATION = {
  metrics: 'autoscaling.alpha.kubernetes.io/metrics',
  currentMetrics: 'autoscaling.alpha.kubernetes.io/current-metrics',
  conditions: 'autoscaling.alpha.kubernetes.io/conditions',
  behavior: 'autoscaling.alpha.kubernetes.io/behavior',
}

function isCpuUtilization(m: Obj): boolean {
  const resource = obj(m.resource)
  return m.type === 'Resource' && resource.name === 'cpu' && obj(resource.target).type === 'Utilization'
}

/** An autoscaling/v2 object from its autoscaling/v1 form. */
export function v1ToV2(o: KubeObject): KubeObject {
  const spec = obj(o.spec)
  const status = obj(o.status)
  const annotations = { ...(o.metadata.annotations ?? {}) }
  const take = (key: string): unknown => {
    const text = annotations[key]
    delete annotations[key]
    if (text === undefined) return undefined
    try {
      return JSON.parse(text) as unknown
    } catch {
      return undefined
    }
  }
  const otherMetrics = arr(take(ANNOTATION.metrics))
  const otherCurrent = arr(take(ANNOTATION.currentMetrics))
  const conditions = take(ANNOTATION.conditions)
  const behavior = take(ANNOTATION.behavior)
  const metrics: unknown[] = []
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } })
  }
  metrics.push(...otherMetrics)
  const v2Spec: Obj = { scaleTargetRef: spec.scaleTargetRef, ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}), maxReplicas: spec.maxReplicas }
  if (metrics.length > 0) v2Spec.metrics = metrics
  if (behavior !== undefined) v2Spec.behavior = behavior
  const v2Status: Obj = {}
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (status[k] !== undefined) v2Status[k] = status[k]
  const current: unknown[] = []
  if (typeof status.currentCPUUtilizationPercentage === 'number') {
    current.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } })
  }
  current.push(...otherCurrent)
  if (current.length > 0) v2Status.currentMetrics = current
  if (conditions !== undefined) v2Status.conditions = conditions
  const metadata = { ...o.metadata }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations
  else delete metadata.annotations
  return { apiVersion: V2, kind: KIND, metadata, spec: v2Spec, ...(o.status !== undefined ? { status: v2Status } : {}) }
}

/** The autoscaling/v1 form of an autoscaling/v2 object. */
export function v2ToV1(o: KubeObject): KubeObject {
  const spec = obj(o.spec)
  const status = obj(o.status)
  const annotations = { ...(o.metadata.annotations ?? {}) }
  const metrics = arr(spec.metrics).map(obj)
  const cpu = metrics.find(isCpuUtilization)
  const others = metrics.filter((m) => m !== cpu)
  const v1Spec: Obj = { scaleTargetRef: spec.scaleTargetRef, ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}), maxReplicas: spec.maxReplicas }
  if (cpu) v1Spec.targetCPUUtilizationPercentage = obj(obj(cpu.resource).target).averageUtilization
  if (others.length > 0) annotations[ANNOTATION.metrics] = JSON.stringify(others)
  if (spec.behavior !== undefined) annotations[ANNOTATION.behavior] = JSON.stringify(spec.behavior)
  const v1Status: Obj = {}
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (status[k] !== undefined) v1Status[k] = status[k]
  const current = arr(status.currentMetrics).map(obj)
  const currentCpu = current.find((m) => m.type === 'Resource' && obj(m.resource).name === 'cpu')
  const cpuNow = obj(obj(currentCpu?.resource).current).averageUtilization
  if (typeof cpuNow === 'number') v1Status.currentCPUUtilizationPercentage = cpuNow
  const otherCurrent = current.filter((m) => m !== currentCpu)
  if (otherCurrent.length > 0) annotations[ANNOTATION.currentMetrics] = JSON.stringify(otherCurrent)
  if (status.conditions !== undefined) annotations[ANNOTATION.conditions] = JSON.stringify(status.conditions)
  v1Status.currentReplicas ??= 0
  v1Status.desiredReplicas ??= 0
  const metadata = { ...o.metadata }
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations
  return { apiVersion: 'autoscaling/v1', kind: KIND, metadata, spec: v1Spec, ...(o.status !== undefined ? { status: v1Status } : {}) }
}

/**
 * Stored as v2, with v2's defaults: the reference decodes stored objects with the storage
 * version's defaulting, so a v1 HPA without a CPU target reads back with the default one.
 */
const STORED_AS_V2: StorageVersion = {
  apiVersion: V2,
  kind: KIND,
  toStorage: (o) => {
    const v2 = v1ToV2(o)
    v2Defaults(v2)
    return v2
  },
  fromStorage: v2ToV1,
}

/** SetDefaults_HorizontalPodAutoscaler of autoscaling/v2. */
function v2Defaults(o: KubeObject): void {
  const spec = obj(o.spec)
  spec.minReplicas ??= 1
  if (arr(spec.metrics).length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }]
  }
  if (spec.behavior !== undefined && spec.behavior !== null) {
    const behavior = obj(spec.behavior)
    behavior.scaleUp = scalingRules(behavior.scaleUp, 'up')
    behavior.scaleDown = scalingRules(behavior.scaleDown, 'down')
    spec.behavior = behavior
  }
  o.spec = spec
}

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the unset parts of a rule. */
function scalingRules(value: unknown, direction: 'up' | 'down'): Obj {
  const rules = obj(structuredClone(value ?? {}))
  if (direction === 'up') {
    rules.stabilizationWindowSeconds ??= 0
    rules.policies ??= [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ]
  } else {
    rules.stabilizationWindowSeconds ??= 300
    rules.policies ??= [{ type: 'Percent', value: 100, periodSeconds: 15 }]
  }
  rules.selectPolicy ??= 'Max'
  return rules
}

/** The reference's printer's Targets column (formatHPAMetrics) of a v2 object. */
function targets(o: KubeObject): string {
  const specs = arr(obj(o.spec).metrics).map(obj)
  const statuses = arr(obj(o.status).currentMetrics).map(obj)
  if (specs.length === 0) return '<none>'
  const list = specs.map((m, i) => {
    const st = statuses[i] ?? {}
    const value = (x: unknown) => str(x)
    switch (m.type) {
      case 'External': {
        const target = obj(obj(m.external).target)
        const current = obj(obj(st.external).current)
        if (target.averageValue !== undefined) return `${current.averageValue !== undefined ? value(current.averageValue) : '<unknown>'}/${value(target.averageValue)} (avg)`
        return `${st.external ? value(current.value) : '<unknown>'}/${value(target.value)}`
      }
      case 'Pods':
        return `${st.pods ? value(obj(obj(st.pods).current).averageValue) : '<unknown>'}/${value(obj(obj(m.pods).target).averageValue)}`
      case 'Object': {
        const target = obj(obj(m.object).target)
        const current = obj(obj(st.object).current)
        if (target.averageValue !== undefined) return `${current.averageValue !== undefined ? value(current.averageValue) : '<unknown>'}/${value(target.averageValue)} (avg)`
        return `${st.object ? value(current.value) : '<unknown>'}/${value(target.value)}`
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = m.type === 'Resource' ? 'resource' : 'containerResource'
        const source = obj(m[key])
        const target = obj(source.target)
        const current = obj(obj(st[key]).current)
        if (target.averageValue !== undefined) return `${str(source.name)}: ${st[key] ? value(current.averageValue) : '<unknown>'}/${value(target.averageValue)}`
        const now = typeof current.averageUtilization === 'number' ? `${current.averageUtilization}%` : '<unknown>'
        const want = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>'
        return `${str(source.name)}: ${now}/${want}`
      }
      default:
        return '<unknown type>'
    }
  })
  const max = 2
  return list.length > max ? `${list.slice(0, max).join(', ')} + ${list.length - max} more...` : list.join(', ')
}

function hpaTable(toV2: (o: KubeObject) => KubeObject): TableColumns {
  return {
    definitions: [
      NAME_COLUMN,
      col('Reference', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
      col('Targets', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).'),
      col('MinPods', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
      col('MaxPods', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
      col('Replicas', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
      AGE_COLUMN,
    ],
    cells: (o, now) => {
      const v2 = toV2(o)
      const spec = obj(v2.spec)
      const ref = obj(spec.scaleTargetRef)
      return [
        o.metadata.name,
        `${str(ref.kind)}/${str(ref.name)}`,
        targets(v2),
        typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>',
        num(spec.maxReplicas),
        num(obj(v2.status).currentReplicas),
        age(o, now),
      ]
    },
  }
}

const common: KindOverrides = {
  statusOwnedBySubresource: true,
  generation: true,
  prepareForCreate(o) {
    o.status = {}
  },
}

export const AUTOSCALING: KindTable = {
  'autoscaling/v2/horizontalpodautoscalers': {
    ...common,
    defaults: v2Defaults,
    validate: validateHorizontalPodAutoscaler,
    validateUpdate: validateHorizontalPodAutoscalerUpdate,
    validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
    table: hpaTable((o) => o),
  },
  'autoscaling/v1/horizontalpodautoscalers': {
    ...common,
    storageVersion: STORED_AS_V2,
    defaults(o) {
      const spec = obj(o.spec)
      spec.minReplicas ??= 1
      o.spec = spec
    },
    // The reference converts a v1 object to the internal form before validating it.
    validate: (o) => validateHorizontalPodAutoscaler(v1ToV2(o)),
    validateUpdate: (o, old) => validateHorizontalPodAutoscalerUpdate(v1ToV2(o), v1ToV2(old)),
    validateStatusUpdate: validateHorizontalPodAutoscalerStatusUpdate,
    table: hpaTable(v1ToV2),
  },
}
