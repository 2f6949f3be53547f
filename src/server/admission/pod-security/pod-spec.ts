/**
 * Where a pod's metadata and spec are (the reference's DefaultPodSpecExtractor and
 * isSignificantPodUpdate): pods themselves, and the pod templates of the workload resources.
 */
import type { KubeObject } from '../../api/registry/object.js'
import { type Obj, type PodLike, annotations, obj } from './check.js'

/** The workload resources whose template is evaluated (warn and audit only), by group. */
const POD_SPEC_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  '': ['pods', 'replicationcontrollers', 'podtemplates'],
  apps: ['replicasets', 'deployments', 'statefulsets', 'daemonsets'],
  batch: ['jobs', 'cronjobs'],
}

export function hasPodSpec(group: string, resource: string): boolean {
  return POD_SPEC_RESOURCES[group]?.includes(resource) ?? false
}

function fromTemplate(template: Obj | undefined): PodLike | undefined {
  if (!template) return undefined
  return { metadata: obj(template.metadata) ?? {}, spec: obj(template.spec) ?? {} }
}

/** The pod (or pod template) of `object` of `resource`; undefined when it carries none. */
export function extractPodSpec(resource: string, object: KubeObject): PodLike | undefined {
  const o = object as unknown as Obj
  const spec = obj(o.spec)
  switch (resource) {
    case 'pods':
      return { metadata: obj(o.metadata) ?? {}, spec: spec ?? {} }
    case 'podtemplates':
      return fromTemplate(obj(o.template))
    case 'cronjobs':
      return fromTemplate(obj(obj(obj(spec?.jobTemplate)?.spec)?.template))
    default:
      return fromTemplate(obj(spec?.template))
  }
}

const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/'

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map((v) => obj(v) ?? {}) : []
}

function significantContainerUpdate(container: Obj, old: Obj, podAnnotations: Record<string, string>, oldAnnotations: Record<string, string>): boolean {
  if (container.image !== old.image) return true
  const key = SECCOMP_CONTAINER_PREFIX + String(container.name ?? '')
  return podAnnotations[key] !== oldAnnotations[key]
}

/**
 * Whether a pod update can change what the checks see (the reference's
 * isSignificantPodUpdate): a container added or removed, an image changed, an ephemeral
 * container added or changed.
 */
export function isSignificantPodUpdate(pod: KubeObject, oldPod: KubeObject): boolean {
  const spec = obj((pod as unknown as Obj).spec) ?? {}
  const oldSpec = obj((oldPod as unknown as Obj).spec) ?? {}
  const a = annotations(obj(pod.metadata as unknown) ?? {})
  const oldA = annotations(obj(oldPod.metadata as unknown) ?? {})
  for (const field of ['containers', 'initContainers']) {
    const now = list(spec[field])
    const before = list(oldSpec[field])
    if (now.length !== before.length) return true
    if (now.some((c, i) => significantContainerUpdate(c, before[i]!, a, oldA))) return true
  }
  const oldEphemeral = list(oldSpec.ephemeralContainers)
  for (const c of list(spec.ephemeralContainers)) {
    const old = oldEphemeral.find((o) => o.name === c.name)
    if (!old || significantContainerUpdate(c, old, a, oldA)) return true
  }
  return false
}
