/**
 * The RuntimeClass admission plugin (the reference's `plugin/pkg/admission/runtimeclass`): a
 * new pod naming a RuntimeClass gets the class's overhead (spec.overhead) and scheduling (its
 * nodeSelector merged into the pod's, its tolerations merged with the pod's); a missing
 * class, an overhead other than the class's, an overhead without a class defining one, or a
 * node selector at odds with the class's is refused with the reference's messages.
 */
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import { compareQuantity, parseQuantity } from '../api/validation/quantity.js'
import { type AdmissionAttributes, CREATE, nameForRefusal } from './attributes.js'
import { type MutationInterface, type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import { mergeTolerations } from './toleration-merge.js'
import type { Toleration } from './tolerations.js'
import type { PluginInitialization } from './plugins.js'

export const RUNTIME_CLASS = 'RuntimeClass'

type Spec = Record<string, unknown>

export class RuntimeClass implements MutationInterface, ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(CREATE)
  readonly actsOn = actsOnOnly('pods')

  async admit(a: AdmissionAttributes): Promise<void> {
    if (ignored(a)) return
    const { spec, runtimeClass } = await this.prepare(a)
    setOverhead(a, spec, runtimeClass)
    setScheduling(a, spec, runtimeClass)
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (ignored(a)) return
    const { spec, runtimeClass } = await this.prepare(a)
    validateOverhead(a, spec, runtimeClass)
  }

  /** The pod's spec and the RuntimeClass it names (undefined when it names none). */
  private async prepare(a: AdmissionAttributes): Promise<{ spec: Spec; runtimeClass: KubeObject | undefined }> {
    const pod = a.object
    if (!pod || !isPlainObject(pod.spec)) throw errors.badRequest('Resource was marked with kind Pod but was unable to be converted')
    const name = pod.spec.runtimeClassName
    if (typeof name !== 'string') return { spec: pod.spec, runtimeClass: undefined }
    const classes = this.init.stores()?.lookup('node.k8s.io', 'v1', 'runtimeclasses')
    if (!classes) throw forbidden(a, 'not yet ready to handle request')
    try {
      return { spec: pod.spec, runtimeClass: await classes.get(undefined, name) }
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) throw forbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`)
      throw err
    }
  }
}

function ignored(a: AdmissionAttributes): boolean {
  return a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'pods'
}

function podFixed(runtimeClass: KubeObject | undefined): Record<string, unknown> | undefined {
  const overhead = runtimeClass?.overhead
  if (!isPlainObject(overhead)) return undefined
  return isPlainObject(overhead.podFixed) ? overhead.podFixed : {}
}

function setOverhead(a: AdmissionAttributes, spec: Spec, runtimeClass: KubeObject | undefined): void {
  const fixed = podFixed(runtimeClass)
  if (fixed === undefined) return
  if (spec.overhead != null && !sameResources(fixed, spec.overhead)) throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
  spec.overhead = structuredClone(fixed)
}

function setScheduling(a: AdmissionAttributes, spec: Spec, runtimeClass: KubeObject | undefined): void {
  const scheduling = runtimeClass?.scheduling
  if (!isPlainObject(scheduling)) return
  const runtimeSelector = isPlainObject(scheduling.nodeSelector) ? (scheduling.nodeSelector as Record<string, string>) : undefined
  let selector = isPlainObject(spec.nodeSelector) ? (spec.nodeSelector as Record<string, string>) : undefined
  if (selector === undefined) selector = runtimeSelector ? { ...runtimeSelector } : undefined
  else {
    for (const [key, runtimeClassValue] of Object.entries(runtimeSelector ?? {})) {
      const podValue = selector[key]
      if (podValue !== undefined && podValue !== runtimeClassValue) {
        throw forbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${runtimeClassValue}; pod.spec.nodeSelector[${key}] = ${podValue}`)
      }
      selector[key] = runtimeClassValue
    }
  }
  const podTolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Toleration[]) : []
  const classTolerations = Array.isArray(scheduling.tolerations) ? (scheduling.tolerations as Toleration[]) : []
  const tolerations = mergeTolerations(podTolerations, structuredClone(classTolerations))
  if (selector !== undefined) spec.nodeSelector = selector
  if (tolerations.length > 0 || spec.tolerations !== undefined) spec.tolerations = tolerations
}

function validateOverhead(a: AdmissionAttributes, spec: Spec, runtimeClass: KubeObject | undefined): void {
  const fixed = podFixed(runtimeClass)
  if (fixed !== undefined) {
    if (!sameResources(fixed, spec.overhead)) throw forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
  } else if (spec.overhead != null) {
    throw forbidden(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')
  }
}

/** Semantic equality of two resource lists: the same names, equal quantities; none is empty. */
function sameResources(x: unknown, y: unknown): boolean {
  const a = isPlainObject(x) ? x : {}
  const b = isPlainObject(y) ? y : {}
  const names = Object.keys(a)
  if (names.length !== Object.keys(b).length) return false
  return names.every((name) => {
    const qa = parseQuantity(a[name])
    const qb = parseQuantity(b[name])
    return qa !== undefined && qb !== undefined && compareQuantity(qa, qb) === 0
  })
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
