/**
 * The pod a Job's controller creates from its template, as the reference's job controller
 * (manageJob, addCompletionIndexAnnotation, addCompletionIndexEnvVariables): named after the
 * Job (`<job>-`, `<job>-<index>-` when Indexed), with the template's labels (the Job's
 * generated selector labels among them), the Job as controller owner, the job tracking
 * finalizer, and for an Indexed Job the completion index as annotation, label, the
 * JOB_COMPLETION_INDEX variable and the hostname `<job>-<index>`.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { controllerRef } from '../kit/owners.js'

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking'
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index'
export const INDEX_FAILURE_COUNT_ANNOTATION = 'batch.kubernetes.io/job-index-failure-count'
const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

export function podForJob(job: KubeObject, index: number | undefined, indexFailures = 0): KubeObject {
  const template = structuredClone(obj(obj(job.spec).template))
  const meta = obj(template.metadata)
  const spec = obj(template.spec)
  const name = job.metadata.name!
  const labels = { ...(obj(meta.labels) as Record<string, string>) }
  const annotations = { ...(obj(meta.annotations) as Record<string, string>) }
  if (index !== undefined) {
    annotations[COMPLETION_INDEX_KEY] = String(index)
    labels[COMPLETION_INDEX_KEY] = String(index)
    if (typeof obj(job.spec).backoffLimitPerIndex === 'number') annotations[INDEX_FAILURE_COUNT_ANNOTATION] = String(indexFailures)
    if (!spec.hostname) spec.hostname = `${name}-${index}`
    for (const list of ['initContainers', 'containers'] as const) {
      for (const container of Array.isArray(spec[list]) ? (spec[list] as Obj[]) : []) {
        const env = Array.isArray(container.env) ? (container.env as Obj[]) : []
        if (env.some((e) => e.name === COMPLETION_INDEX_ENV)) continue
        container.env = [...env, { name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } } }]
      }
    }
  }
  const finalizers = Array.isArray(meta.finalizers) ? [...(meta.finalizers as string[])] : []
  if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER)
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: index === undefined ? `${name}-` : `${name}-${index}-`,
      namespace: job.metadata.namespace,
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      finalizers,
      ownerReferences: [controllerRef(job, 'batch/v1', 'Job')],
    },
    spec,
  }
}

/** getCompletionIndex: the pod's index, or undefined when it has none or a bad one. */
export function completionIndexOf(pod: KubeObject): number | undefined {
  const text = pod.metadata.annotations?.[COMPLETION_INDEX_KEY] ?? pod.metadata.labels?.[COMPLETION_INDEX_KEY]
  if (text === undefined || !/^\d+$/.test(text)) return undefined
  return Number(text)
}

export const hasTrackingFinalizer = (pod: KubeObject): boolean => Array.isArray(pod.metadata.finalizers) && (pod.metadata.finalizers as string[]).includes(JOB_TRACKING_FINALIZER)
