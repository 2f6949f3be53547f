/**
 * Where a request's time went, by layer (the reference's request.LatencyTrackers): each layer
 * this server can measure adds up its durations (or keeps the longest, for the priority-and-
 * fairness queue wait), and a slow request's audit event carries them as
 * `apiserver.latency.k8s.io/<layer>` annotations (AuditAnnotationsFromLatencyTrackers).
 * Measured here: the admission webhooks' calls, the priority-and-fairness queue wait and the
 * response writes before the response's end. Not tracked (no such layer, or not measured
 * yet): etcd, decode-response-object, transform-response-object, serialize-response-object.
 */
import { formatGoDuration } from '../../core/options/go-syntax.js'

/** The layers measured, in the reference's order of its annotations, with their annotation keys. */
const LAYER_KEYS = {
  responseWrite: 'apiserver.latency.k8s.io/response-write',
  mutatingWebhook: 'apiserver.latency.k8s.io/mutating-webhook',
  validatingWebhook: 'apiserver.latency.k8s.io/validating-webhook',
  apfQueueWait: 'apiserver.latency.k8s.io/apf-queue-wait',
} as const

export type LatencyLayer = keyof typeof LAYER_KEYS

export class LatencyTrackers {
  private readonly ms: Partial<Record<LatencyLayer, number>> = {}

  /** Adds a duration (ms) to the layer's total (the reference's sum trackers). */
  add(layer: LatencyLayer, ms: number): void {
    this.ms[layer] = (this.ms[layer] ?? 0) + ms
  }

  /** Keeps the longest duration (ms) of the layer (the reference's max trackers: the APF queue wait). */
  max(layer: LatencyLayer, ms: number): void {
    this.ms[layer] = Math.max(this.ms[layer] ?? 0, ms)
  }

  /** Each layer with time spent in it, as Go prints a duration (`501.2ms`). */
  annotations(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const layer of Object.keys(LAYER_KEYS) as LatencyLayer[]) {
      const ms = this.ms[layer]
      if (ms !== undefined && ms !== 0) out[LAYER_KEYS[layer]] = formatGoDuration(ms)
    }
    return out
  }
}

/** Layers are annotated only on requests slower than this, as the reference's traces (writeLatencyToAnnotation). */
export const LATENCY_ANNOTATION_THRESHOLD_MS = 500

/**
 * The annotations of a request that took `totalMs`: none at or under the threshold or when no
 * layer was measured, else each layer's and `apiserver.latency.k8s.io/total`.
 */
export function latencyAnnotations(trackers: LatencyTrackers | undefined, totalMs: number): Record<string, string> | undefined {
  if (!trackers || totalMs <= LATENCY_ANNOTATION_THRESHOLD_MS) return undefined
  const layers = trackers.annotations()
  if (Object.keys(layers).length === 0) return undefined
  layers['apiserver.latency.k8s.io/total'] = formatGoDuration(totalMs)
  return layers
}
