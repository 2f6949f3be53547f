/**
 * What the simulated containers use, for the metrics API (`kubectl top`) and the horizontal pod
 * autoscaler. No process runs, so usage follows a rule instead of a measure:
 *
 * - the pod annotations `metrics.client.dev/cpu` and `metrics.client.dev/memory` (quantities)
 *   give each of its containers' usage, so that a test or a demo sets the load of a Deployment's
 *   pods in its template (or on one pod with `kubectl annotate`);
 * - otherwise each container uses what it requests (`resources.requests`), and nothing of a
 *   resource it does not request.
 *
 * Only Running pods have metrics (as metrics-server reports only pods whose containers run).
 */
import type { KubeObject } from '../api/registry/object.js'
import { milliValue, parseQuantity } from '../api/validation/quantity.js'

export const CPU_ANNOTATION = 'metrics.client.dev/cpu'
export const MEMORY_ANNOTATION = 'metrics.client.dev/memory'

export interface ContainerUsage {
  readonly name: string
  /** Thousandths of a CPU. */
  readonly cpuMilli: number
  /** Bytes. */
  readonly memoryBytes: number
}

type Json = Record<string, unknown>
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {})

const milli = (q: unknown): number | undefined => {
  const parsed = parseQuantity(q)
  return parsed ? Number(milliValue(parsed)) : undefined
}

/** Each container's usage by the rule above; undefined when the pod has no metrics (not Running). */
export function simulatedContainerUsage(pod: KubeObject): ContainerUsage[] | undefined {
  if (obj(pod.status).phase !== 'Running') return undefined
  const annotations = pod.metadata.annotations ?? {}
  const cpuAnnotation = milli(annotations[CPU_ANNOTATION])
  const memoryAnnotation = milli(annotations[MEMORY_ANNOTATION])
  const containers = Array.isArray(obj(pod.spec).containers) ? (obj(pod.spec).containers as unknown[]).map(obj) : []
  return containers.map((c) => {
    const requests = obj(obj(c.resources).requests)
    return {
      name: String(c.name ?? ''),
      cpuMilli: cpuAnnotation ?? milli(requests.cpu) ?? 0,
      memoryBytes: Math.ceil((memoryAnnotation ?? milli(requests.memory) ?? 0) / 1000),
    }
  })
}

/** A CPU amount as metrics-server writes it (nanocores). */
export const cpuQuantity = (cpuMilli: number): string => (cpuMilli === 0 ? '0' : `${Math.round(cpuMilli * 1_000_000)}n`)

/** A memory amount as metrics-server writes it (KiB when whole, else bytes). */
export const memoryQuantity = (bytes: number): string => (bytes === 0 ? '0' : bytes % 1024 === 0 ? `${bytes / 1024}Ki` : String(bytes))
