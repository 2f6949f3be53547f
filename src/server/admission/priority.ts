/**
 * The Priority admission plugin (the reference's `plugin/pkg/admission/priority`): a new pod
 * gets its priority and preemption policy from its PriorityClass, or from the global default
 * class (the lowest value among several), or 0 and PreemptLowerPriority without one; a pod
 * that names a missing class, or sets a priority or a policy other than the class's, is
 * refused. An update keeps the priority and policy the pod was given. A PriorityClass marked
 * global default is refused while another one is.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import { ApiError, errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, DELETE, UPDATE, nameForRefusal } from './attributes.js'
import { type MutationInterface, type ValidationInterface, actsOnOnly, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const PRIORITY = 'Priority'

/** scheduling.DefaultPriorityWhenNoDefaultClassExists. */
const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0
const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority'

/** What a pod takes from its class: the name written back, the value, the policy. */
interface Resolved {
  className: string
  value: number
  preemptionPolicy: string | undefined
}

export class Priority implements MutationInterface, ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(CREATE, UPDATE, DELETE)
  readonly actsOn = actsOnOnly('pods', 'priorityclasses.scheduling.k8s.io')

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || a.resource.group !== '' || a.resource.resource !== 'pods') return
    if (a.operation === CREATE) return this.admitNewPod(a)
    if (a.operation === UPDATE) keepGivenPriority(a)
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (a.subresource !== '' || a.resource.group !== 'scheduling.k8s.io' || a.resource.resource !== 'priorityclasses') return
    if (a.operation !== CREATE && a.operation !== UPDATE) return
    const pc = a.object
    if (!pc || pc.globalDefault !== true) return
    const current = await this.defaultClass(a)
    // A second default is refused, and so is marking another class default while one is.
    if (current && (a.operation === CREATE || current.metadata.name !== pc.metadata.name)) {
      throw forbidden(a, `PriorityClass ${current.metadata.name} is already marked as default. Only one default can exist`)
    }
  }

  private async admitNewPod(a: AdmissionAttributes): Promise<void> {
    const spec = podSpec(a)
    const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : ''
    const resolved = className === '' ? await this.defaultPriority(a) : await this.named(a, className)
    spec.priorityClassName = resolved.className
    if (spec.priorityClassName === '') delete spec.priorityClassName
    if (typeof spec.priority === 'number' && spec.priority !== resolved.value) {
      throw forbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${resolved.value} from the given PriorityClass name`)
    }
    spec.priority = resolved.value
    if (resolved.preemptionPolicy === undefined) return
    if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== resolved.preemptionPolicy) {
      throw forbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${resolved.preemptionPolicy} from the given PriorityClass name`)
    }
    spec.preemptionPolicy = resolved.preemptionPolicy
  }

  /** The class the pod names; a missing one refuses the pod. */
  private async named(a: AdmissionAttributes, className: string): Promise<Resolved> {
    let pc: KubeObject
    try {
      // From the watch cache, as the reference reads its PriorityClass lister.
      pc = await this.classes(a).get(undefined, className, '0')
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) throw forbidden(a, `no PriorityClass with name ${className} was found`)
      throw new Error(`failed to get PriorityClass with name ${className}: ${err instanceof Error ? err.message : String(err)}`)
    }
    return { className, value: Number(pc.value ?? 0), preemptionPolicy: policyOf(pc) }
  }

  /** The default class's name, value and policy; without one, 0 and PreemptLowerPriority. */
  private async defaultPriority(a: AdmissionAttributes): Promise<Resolved> {
    const pc = await this.defaultClass(a)
    if (pc) return { className: pc.metadata.name ?? '', value: Number(pc.value ?? 0), preemptionPolicy: policyOf(pc) }
    return { className: '', value: DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS, preemptionPolicy: PREEMPT_LOWER_PRIORITY }
  }

  /**
   * The global default class: of several (two written at once), the one with the lowest value,
   * as the reference picks.
   */
  private async defaultClass(a: AdmissionAttributes): Promise<KubeObject | undefined> {
    const { items } = await this.classes(a).list({ resourceVersion: '0' })
    let found: KubeObject | undefined
    for (const pc of items) {
      if (pc.globalDefault === true && (found === undefined || Number(found.value) > Number(pc.value))) found = pc
    }
    return found
  }

  /** The PriorityClasses; before they are served, the reference's not-ready refusal. */
  private classes(a: AdmissionAttributes): GenericStore {
    const store = this.init.stores()?.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')
    if (!store) throw forbidden(a, 'not yet ready to handle request')
    return store
  }
}

/**
 * On update, the priority and policy set at creation stay (validation refuses any other change
 * of them), so that a client sending the pod without them does not clear them.
 */
function keepGivenPriority(a: AdmissionAttributes): void {
  const spec = podSpec(a)
  const old = isPlainObject(a.oldObject?.spec) ? a.oldObject.spec : {}
  if (spec.priority == null && old.priority != null) spec.priority = old.priority
  if (spec.preemptionPolicy == null && old.preemptionPolicy != null) spec.preemptionPolicy = old.preemptionPolicy
}

function podSpec(a: AdmissionAttributes): Record<string, unknown> {
  const pod = a.object
  if (!pod || !isPlainObject(pod.spec)) throw errors.badRequest('resource was marked with kind Pod but was unable to be converted')
  return pod.spec
}

function policyOf(pc: KubeObject): string | undefined {
  return typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined
}

/** The reference's admission.NewForbidden: the resource, the name and the reason. */
function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
