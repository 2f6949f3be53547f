/**
 * The horizontal pod autoscaler (the reference's pkg/controller/podautoscaler/horizontal.go,
 * kube-controller-manager's `horizontal-pod-autoscaler-controller`): every sync period
 * (--horizontal-pod-autoscaler-sync-period, 15 s) each autoscaling/v2 HPA reads its target's
 * scale (Deployments, ReplicaSets, StatefulSets, ReplicationControllers), computes a replica count
 * for each Resource metric (Utilization or AverageValue) from the pods' resource metrics
 * (replica-calculator.ts), keeps the highest, normalizes it (normalize.ts: stabilization windows,
 * policies, min/max), writes the new size through the target and records SuccessfulRescale, and
 * writes its status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime and the
 * conditions AbleToScale, ScalingActive, ScalingLimited) with the reference's reasons and
 * messages. Metrics come from the cluster's resource metrics source (the simulated usage, the
 * same numbers `metrics.k8s.io` serves). Other metric types (Pods, Object, External,
 * ContainerResource) are reported as invalid metrics.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Registry } from '../api/registry/registry.js'
import { labelSelectorString } from '../api/handlers/scale.js'
import { milliValue, parseQuantity, canonicalQuantity } from '../api/validation/quantity.js'
import { toApiError } from '../api/status-errors.js'
import { matchesLabels, parseLabelSelector } from '../../core/util/selectors.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { EventRecorder } from './event-recorder.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue, keyOf, splitKey } from './kit/keyed-queue.js'
import { type Condition, ScalingHistory, behaviorOf } from './podautoscaler/normalize.js'
import { type PodMetric, resourceReplicas } from './podautoscaler/replica-calculator.js'

export type { PodMetric } from './podautoscaler/replica-calculator.js'

const COMPONENT = 'horizontal-pod-autoscaler'
const ADMISSION = asControllerServiceAccount('horizontal-pod-autoscaler')

/** The resource metrics of a pod's containers (thousandths of the unit, by resource name); undefined without metrics. */
export type PodResourceMetrics = (pod: KubeObject) => { timestamp: number; windowMs: number; containers: ReadonlyArray<{ name: string; usage: Readonly<Record<string, number>> }> } | undefined

export interface HorizontalPodAutoscalerOptions {
  readonly metrics: PodResourceMetrics
  readonly clock?: Clock
  /** --horizontal-pod-autoscaler-sync-period (15 s). */
  readonly syncPeriodMs?: number
  /** --horizontal-pod-autoscaler-downscale-stabilization (5 min). */
  readonly downscaleStabilizationMs?: number
  /** --horizontal-pod-autoscaler-tolerance (0.1). */
  readonly tolerance?: number
  readonly onError?: (err: Error) => void
}

/** The scalable kinds by scaleTargetRef (group of its apiVersion, kind). */
const TARGETS: Record<string, { group: string; version: string; resource: string }> = {
  'apps/Deployment': { group: 'apps', version: 'v1', resource: 'deployments' },
  'apps/ReplicaSet': { group: 'apps', version: 'v1', resource: 'replicasets' },
  'apps/StatefulSet': { group: 'apps', version: 'v1', resource: 'statefulsets' },
  '/ReplicationController': { group: '', version: 'v1', resource: 'replicationcontrollers' },
}

/** The metric sources of other metrics APIs: their failure reason and how the error names them. */
const UNSERVED_SOURCES: Record<string, { reason: string; metric: string; api: string }> = {
  Pods: { reason: 'FailedGetPodsMetric', metric: 'pods metric', api: 'custom.metrics.k8s.io' },
  Object: { reason: 'FailedGetObjectMetric', metric: 'object metric', api: 'custom.metrics.k8s.io' },
  External: { reason: 'FailedGetExternalMetric', metric: 'external metric', api: 'external.metrics.k8s.io' },
  ContainerResource: { reason: 'FailedGetContainerResourceMetric', metric: 'container metric', api: 'container resource metrics' },
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : [])
const milli = (q: unknown): number | undefined => {
  const parsed = parseQuantity(q)
  return parsed ? Number(milliValue(parsed)) : undefined
}
const milliQuantity = (m: number) => canonicalQuantity(`${m}m`)
const timestampOf = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

/** One metric's outcome: a proposal with its name and status, or the condition and error of a failure. */
type MetricOutcome = { replicas: number; name: string; status: Json } | { error: Error; reason: string; metric: string }

export class HorizontalPodAutoscalerController implements Controller {
  readonly name = 'horizontal-pod-autoscaler-controller'
  private readonly clock: Clock
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private registry!: Registry
  private hpas!: GenericStore
  private events!: EventRecorder
  private readonly histories = new Map<string, ScalingHistory>()
  private readonly generations = new Map<string, number | undefined>()

  constructor(private readonly options: HorizontalPodAutoscalerOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  private get syncPeriodMs(): number {
    return this.options.syncPeriodMs ?? 15_000
  }

  async start(ctx: ControllerContext): Promise<void> {
    const hpas = ctx.registry.lookup('autoscaling', 'v2', 'horizontalpodautoscalers')
    if (!hpas) return
    this.registry = ctx.registry
    this.hpas = hpas
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `horizontal pod autoscaler: ${e.message}`)))(err as Error)
    this.events = new EventRecorder(ctx.registry, COMPONENT, { clock: this.clock, onError })
    this.queue = new KeyedQueue((key) => this.sync(key), { clock: this.clock, recheckMs: Math.min(1000, this.syncPeriodMs), onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      if (strategy.group !== 'autoscaling' || strategy.resource !== 'horizontalpodautoscalers') return
      const key = keyOf(object.metadata.namespace, object.metadata.name)
      if (type === 'deleted') {
        this.histories.delete(key)
        this.generations.delete(key)
        return
      }
      // A new HPA or a changed spec is looked at now; its own status writes wait for the period.
      if (this.generations.get(key) !== object.metadata.generation || !this.generations.has(key)) this.queue?.add(key)
    })
    this.queue.start()
    for (const hpa of (await hpas.list()).items) this.queue.add(keyOf(hpa.metadata.namespace, hpa.metadata.name))
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  private async sync(key: string): Promise<void> {
    const [namespace, name] = splitKey(key)
    let hpa: KubeObject
    try {
      hpa = await this.hpas.get(namespace, name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    this.generations.set(key, hpa.metadata.generation)
    try {
      await this.reconcile(key, hpa)
    } finally {
      this.queue?.addAfter(key, this.syncPeriodMs)
    }
  }

  /** reconcileAutoscaler. */
  private async reconcile(key: string, hpa: KubeObject): Promise<void> {
    const now = this.clock.now()
    const spec = obj(hpa.spec)
    const status = obj(hpa.status)
    let conditions = arr(status.conditions)
    const set = (c: Condition | { type: string; status: string; reason: string; message: string }) => {
      conditions = setCondition(conditions, c, now)
    }
    const ref = obj(spec.scaleTargetRef)
    const group = String(ref.apiVersion ?? '').includes('/') ? String(ref.apiVersion).split('/')[0]! : ''
    const target = TARGETS[`${group}/${String(ref.kind ?? '')}`]
    const targetStore = target ? this.registry.lookup(target.group, target.version, target.resource) : undefined
    let scaled: KubeObject | undefined
    let scaleError: Error | undefined
    if (!targetStore) scaleError = new Error(`no matches for kind "${String(ref.kind ?? '')}" in group "${group}"`)
    else {
      try {
        scaled = await targetStore.get(hpa.metadata.namespace, String(ref.name ?? ''))
      } catch (err) {
        scaleError = new Error(toApiError(err).status.message ?? (err as Error).message)
      }
    }
    if (!scaled || !targetStore) {
      set({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${scaleError!.message}` })
      await this.events.record(hpa, 'Warning', 'FailedGetScale', scaleError!.message)
      await this.writeStatus(hpa, { ...status, conditions })
      return
    }
    set({ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" })
    const targetSpec = obj(scaled.spec)
    const specReplicas = typeof targetSpec.replicas === 'number' ? targetSpec.replicas : 1
    // The reference reads the Scale's spec.replicas as the current count.
    const currentReplicas = specReplicas
    const history = this.histories.get(key) ?? new ScalingHistory(currentReplicas, now)
    this.histories.set(key, history)
    const minReplicas = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1
    const maxReplicas = Number(spec.maxReplicas ?? 0)
    let desiredReplicas = 0
    let rescaleReason = ''
    let rescale = true
    let metricStatuses: Json[] = arr(status.currentMetrics)
    const behavior = behaviorOf(spec, (this.options.downscaleStabilizationMs ?? 300_000) / 1000)
    if (currentReplicas === 0 && minReplicas !== 0) {
      desiredReplicas = 0
      rescale = false
      set({ type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' })
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas'
      desiredReplicas = maxReplicas
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas'
      desiredReplicas = minReplicas
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scaled, specReplicas, currentReplicas, set)
      if ('error' in computed) {
        await this.events.record(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error.message)
        await this.writeStatus(hpa, { ...status, currentReplicas, currentMetrics: computed.statuses.length ? computed.statuses : null, conditions })
        return
      }
      metricStatuses = computed.statuses
      let rescaleMetric = ''
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas
        rescaleMetric = computed.name
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target'
      desiredReplicas = behavior
        ? history.normalizeWithBehavior(now, behavior, currentReplicas, desiredReplicas, minReplicas, maxReplicas, set)
        : history.normalize(now, this.options.downscaleStabilizationMs ?? 300_000, currentReplicas, desiredReplicas, minReplicas, maxReplicas, set)
      rescale = desiredReplicas !== currentReplicas
    }
    let lastScaleTime = status.lastScaleTime
    if (rescale) {
      try {
        await targetStore.update(hpa.metadata.namespace, scaled.metadata.name!, (current) => ({ ...current, spec: { ...obj(current.spec), replicas: desiredReplicas } }), { admission: ADMISSION, retryOnConflict: true })
      } catch (err) {
        const message = toApiError(err).status.message ?? (err as Error).message
        await this.events.record(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`)
        set({ type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${message}` })
        await this.writeStatus(hpa, { ...status, currentReplicas, currentMetrics: metricStatuses.length ? metricStatuses : null, conditions })
        return
      }
      set({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desiredReplicas}` })
      await this.events.record(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`)
      history.storeScaleEvent(now, behavior, currentReplicas, desiredReplicas)
      lastScaleTime = timestampOf(now)
    } else desiredReplicas = currentReplicas
    await this.writeStatus(hpa, {
      ...(lastScaleTime ? { lastScaleTime } : {}),
      currentReplicas,
      desiredReplicas,
      ...(metricStatuses.length ? { currentMetrics: metricStatuses } : {}),
      conditions,
    })
  }

  /** computeReplicasForMetrics: the highest proposal, or -1 (an error) when too many metrics are invalid. */
  private async computeReplicasForMetrics(
    hpa: KubeObject,
    scaled: KubeObject,
    specReplicas: number,
    currentReplicas: number,
    set: (c: { type: string; status: string; reason: string; message: string }) => void,
  ): Promise<{ replicas: number; name: string; statuses: Json[] } | { error: Error; statuses: Json[] }> {
    const selectorText = labelSelectorString(obj(scaled.spec).selector)
    if (!selectorText) {
      await this.events.record(hpa, 'Warning', 'SelectorRequired', 'selector is required')
      set({ type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" })
      return { error: new Error('selector is required'), statuses: [] }
    }
    const reqs = parseLabelSelector(selectorText)
    const pods = (await this.registry.lookup('', 'v1', 'pods')!.list({ namespace: hpa.metadata.namespace })).items.filter((p) => matchesLabels(reqs, p.metadata.labels))
    const specs = arr(obj(hpa.spec).metrics)
    const statuses: Json[] = []
    let replicas = 0
    let name = ''
    let invalid = 0
    let firstError: Error | undefined
    let failure: { reason: string; message: string } | undefined
    for (const metric of specs) {
      const outcome = this.resourceMetric(metric, pods, currentReplicas)
      if ('error' in outcome) {
        invalid++
        firstError ??= new Error(`failed to get ${outcome.metric} value: ${outcome.error.message}`)
        failure ??= { reason: outcome.reason, message: `the HPA was unable to compute the replica count: ${outcome.error.message}` }
        await this.events.record(hpa, 'Warning', outcome.reason, outcome.error.message)
        statuses.push({ type: '' })
        continue
      }
      statuses.push(outcome.status)
      if (replicas === 0 || outcome.replicas > replicas) {
        replicas = outcome.replicas
        name = outcome.name
      }
    }
    if (invalid >= specs.length || (invalid > 0 && replicas < specReplicas)) {
      if (failure) set({ type: 'ScalingActive', status: 'False', ...failure })
      return { error: new Error(`invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError?.message ?? 'no metrics'}`), statuses }
    }
    set({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${name}` })
    return { replicas, name, statuses }
  }

  /** computeStatusForResourceMetric: one Resource metric's proposal and status. */
  private resourceMetric(metric: Json, pods: readonly KubeObject[], currentReplicas: number): MetricOutcome {
    const type = String(metric.type ?? '')
    if (type !== 'Resource') {
      // No custom or external metrics API is served: those sources fail as they do without one.
      const known = UNSERVED_SOURCES[type]
      if (!known) return { error: new Error(`unknown metric source type "${type}"`), reason: 'InvalidMetricSourceType', metric: 'metric' }
      return { error: new Error(`the ${known.api} API is not served by this cluster`), reason: known.reason, metric: known.metric }
    }
    const resource = String(obj(metric.resource).name ?? '')
    const metricName = `${resource} resource metric`
    const target = obj(obj(metric.resource).target)
    const metrics = new Map<string, PodMetric>()
    for (const pod of pods) {
      const measured = this.options.metrics(pod)
      if (!measured) continue
      metrics.set(pod.metadata.name ?? '', { value: measured.containers.reduce((sum, c) => sum + (c.usage[resource] ?? 0), 0), timestamp: measured.timestamp, windowMs: measured.windowMs })
    }
    const input = { currentReplicas, pods, metrics, resource, tolerance: this.options.tolerance ?? 0.1, now: this.clock.now() }
    try {
      if (target.averageValue !== undefined) {
        const proposal = resourceReplicas(input, { averageMilli: milli(target.averageValue) ?? 0 }, milli)
        return { replicas: proposal.replicas, name: `${resource} resource`, status: { type: 'Resource', resource: { name: resource, current: { averageValue: milliQuantity(proposal.rawAverage) } } } }
      }
      if (typeof target.averageUtilization !== 'number') return { error: new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set'), reason: 'FailedGetResourceMetric', metric: metricName }
      const proposal = resourceReplicas(input, { utilization: target.averageUtilization }, milli)
      return {
        replicas: proposal.replicas,
        name: `${resource} resource utilization (percentage of request)`,
        status: { type: 'Resource', resource: { name: resource, current: { averageUtilization: proposal.utilization, averageValue: milliQuantity(proposal.rawAverage) } } },
      }
    } catch (err) {
      const kind = target.averageValue !== undefined ? 'usage' : 'utilization'
      return { error: new Error(`failed to get ${resource} ${kind}: ${(err as Error).message}`), reason: 'FailedGetResourceMetric', metric: metricName }
    }
  }

  private async writeStatus(hpa: KubeObject, status: Json): Promise<void> {
    if (JSON.stringify(status) === JSON.stringify(hpa.status ?? {})) return
    await this.hpas.update(hpa.metadata.namespace, hpa.metadata.name!, (current) => ({ ...current, status }), { subresource: 'status', admission: ADMISSION })
  }
}

/** setCondition: the condition replaced in place, its lastTransitionTime kept while its status stays. */
function setCondition(conditions: Json[], c: { type: string; status: string; reason: string; message: string }, now: number): Json[] {
  const existing = conditions.find((x) => x.type === c.type)
  const lastTransitionTime = existing && existing.status === c.status ? existing.lastTransitionTime : timestampOf(now)
  const next = { type: c.type, status: c.status, lastTransitionTime, reason: c.reason, message: c.message }
  return existing ? conditions.map((x) => (x.type === c.type ? next : x)) : [...conditions, next]
}
