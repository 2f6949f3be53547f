/**
 * The reference's replica calculator for Resource metrics (pkg/controller/podautoscaler
 * replica_calculator.go, GetResourceReplicas and GetRawResourceReplicas over groupPods): the
 * pods of the target's selector are grouped into ready, unready (Pending, or for CPU not yet
 * Ready or Ready too recently for a full metrics window), missing (no metrics) and ignored (being
 * deleted, Failed); the usage ratio of the ready ones against the target decides, within the
 * tolerance nothing changes, and missing or unready pods are counted the conservative way
 * (missing as the target when scaling down, as zero when scaling up; unready as zero) before a
 * second ratio is taken. Amounts are thousandths (MilliValue), as the reference's metrics client
 * reads them.
 */
import type { KubeObject } from '../../api/registry/object.js'

/** One pod's metric as the resource metrics API gives it. */
export interface PodMetric {
  /** Sum over the containers, in thousandths of the unit. */
  readonly value: number
  /** When it was measured (ms since the epoch), and over which window (ms). */
  readonly timestamp: number
  readonly windowMs: number
}

export interface ReplicaProposal {
  readonly replicas: number
  /** averageUtilization (percent of request), for Utilization targets. */
  readonly utilization?: number
  /** averageValue in thousandths. */
  readonly rawAverage: number
}

/** The reference's --horizontal-pod-autoscaler-cpu-initialization-period and initial-readiness-delay defaults. */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000
export const DELAY_OF_INITIAL_READINESS_STATUS_MS = 30_000

export interface CalculatorInput {
  readonly currentReplicas: number
  readonly pods: readonly KubeObject[]
  readonly metrics: ReadonlyMap<string, PodMetric>
  readonly resource: string
  readonly tolerance: number
  readonly now: number
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : [])

const within = (ratio: number, tolerance: number) => 1 - tolerance <= ratio && ratio <= 1 + tolerance

interface Groups {
  readyPodCount: number
  unready: Set<string>
  missing: Set<string>
  ignored: Set<string>
}

/** groupPods. */
export function groupPods(input: CalculatorInput): Groups {
  const groups: Groups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() }
  for (const pod of input.pods) {
    const name = pod.metadata.name ?? ''
    const status = obj(pod.status)
    if (pod.metadata.deletionTimestamp || status.phase === 'Failed') {
      groups.ignored.add(name)
      continue
    }
    if (status.phase === 'Pending') {
      groups.unready.add(name)
      continue
    }
    const metric = input.metrics.get(name)
    if (!metric) {
      groups.missing.add(name)
      continue
    }
    if (input.resource === 'cpu') {
      const ready = arr(status.conditions).find((c) => c.type === 'Ready')
      const startTime = typeof status.startTime === 'string' ? Date.parse(status.startTime) : undefined
      let unready: boolean
      if (!ready || startTime === undefined) unready = true
      else {
        const transition = typeof ready.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : 0
        if (startTime + CPU_INITIALIZATION_PERIOD_MS > input.now) unready = ready.status === 'False' || metric.timestamp < transition + metric.windowMs
        else unready = ready.status === 'False' && startTime + DELAY_OF_INITIAL_READINESS_STATUS_MS > transition
      }
      if (unready) {
        groups.unready.add(name)
        continue
      }
    }
    groups.readyPodCount++
  }
  return groups
}

/** calculatePodRequests: each pod's request of the resource, summed over its containers. */
export function podRequests(pods: readonly KubeObject[], resource: string, milli: (q: unknown) => number | undefined): Map<string, number> {
  const requests = new Map<string, number>()
  for (const pod of pods) {
    let total = 0
    for (const c of arr(obj(pod.spec).containers)) {
      const request = milli(obj(obj(c.resources).requests)[resource])
      if (request === undefined) throw new Error(`missing request for ${resource} in container ${String(c.name ?? '')} of Pod ${pod.metadata.name ?? ''}`)
      total += request
    }
    requests.set(pod.metadata.name ?? '', total)
  }
  return requests
}

/** metricsclient.GetResourceUtilizationRatio. */
function utilizationRatio(metrics: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>, target: number): { ratio: number; utilization: number; raw: number } {
  let metricsTotal = 0
  let requestsTotal = 0
  let count = 0
  for (const [name, value] of metrics) {
    const request = requests.get(name)
    if (request === undefined) continue
    metricsTotal += value
    requestsTotal += request
    count++
  }
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods')
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal)
  return { ratio: utilization / target, utilization, raw: Math.trunc(metricsTotal / count) }
}

/** metricsclient.GetMetricUsageRatio. */
function usageRatio(metrics: ReadonlyMap<string, number>, target: number): { ratio: number; raw: number } {
  let total = 0
  for (const value of metrics.values()) total += value
  const raw = Math.trunc(total / metrics.size)
  return { ratio: raw / target, raw }
}

/**
 * GetResourceReplicas (a Utilization target, percent of request) or GetRawResourceReplicas (an
 * AverageValue target, thousandths): the proposal, or an Error with the reference's message.
 */
export function resourceReplicas(input: CalculatorInput, target: { utilization: number } | { averageMilli: number }, milli: (q: unknown) => number | undefined): ReplicaProposal {
  if (input.metrics.size === 0) throw new Error(`unable to get metrics for resource ${input.resource}: no metrics returned from resource metrics API`)
  if (input.pods.length === 0) throw new Error('no pods returned by selector while calculating replica count')
  const groups = groupPods(input)
  const metrics = new Map<string, number>()
  for (const [name, m] of input.metrics) if (!groups.ignored.has(name) && !groups.unready.has(name)) metrics.set(name, m.value)
  if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)')
  const requests = 'utilization' in target ? podRequests(input.pods, input.resource, milli) : undefined
  const measure = (values: ReadonlyMap<string, number>) => ('utilization' in target ? utilizationRatio(values, requests!, target.utilization) : { ...usageRatio(values, target.averageMilli), utilization: undefined })
  const first = measure(metrics)
  const proposal = (replicas: number): ReplicaProposal => ({ replicas, rawAverage: first.raw, ...(first.utilization !== undefined ? { utilization: first.utilization } : {}) })
  const scaleUpWithUnready = groups.unready.size > 0 && first.ratio > 1
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (within(first.ratio, input.tolerance)) return proposal(input.currentReplicas)
    return proposal(Math.ceil(first.ratio * groups.readyPodCount))
  }
  for (const name of groups.missing) {
    if (first.ratio < 1) metrics.set(name, 'utilization' in target ? Math.trunc(((requests!.get(name) ?? 0) * Math.max(100, target.utilization)) / 100) : target.averageMilli)
    else if (first.ratio > 1) metrics.set(name, 0)
  }
  if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, 0)
  const second = measure(metrics).ratio
  if (within(second, input.tolerance) || (first.ratio < 1 && second > 1) || (first.ratio > 1 && second < 1)) return proposal(input.currentReplicas)
  const replicas = Math.ceil(second * metrics.size)
  if ((second < 1 && replicas > input.currentReplicas) || (second > 1 && replicas < input.currentReplicas)) return proposal(input.currentReplicas)
  return proposal(replicas)
}
