/**
 * The MutatingAdmissionPolicy admission plugin (the reference's
 * apiserver/pkg/admission/plugin/policy/mutating plugin.go): the stored
 * MutatingAdmissionPolicies and their bindings (read in admissionregistration.k8s.io/v1beta1,
 * as the reference's informers do) mutate what they match on CREATE, UPDATE and CONNECT. Off
 * unless the MutatingAdmissionPolicy feature gate is on (InspectFeatureGates); the policies and
 * bindings themselves are never mutated.
 */
import { DEDUCED } from '../../../../core/apply/index.js'
import { typeOf } from '../../../api/handlers/field-manager.js'
import type { GenericStore } from '../../../api/registry/generic-store.js'
import { type AdmissionAttributes, type AdmissionOperation, CONNECT, CREATE, UPDATE } from '../../attributes.js'
import type { MutationInterface } from '../../interfaces.js'
import type { PluginInitialization } from '../../plugins.js'
import { isExcludedFromPolicies } from '../dispatch.js'
import { PolicySource } from '../sources.js'
import { type MutatingPolicyEvaluator, compilePolicy } from './compile.js'
import { MutatingPolicyDispatcher } from './dispatcher.js'
import type { ObjectType } from './patch.js'
import { stopNamespaceCache } from '../../namespace-cache.js'

export const MUTATING_ADMISSION_POLICY = 'MutatingAdmissionPolicy'

const FEATURE_GATE = 'MutatingAdmissionPolicy'
/** There is no request body to mutate on DELETE. */
const OPERATIONS: ReadonlySet<AdmissionOperation> = new Set([CREATE, UPDATE, CONNECT])

interface Resolving {
  resolve(group: string, version: string, resource: string): Promise<GenericStore | undefined>
}

export class MutatingAdmissionPolicy implements MutationInterface {
  private readonly enabled: boolean
  private readonly source: PolicySource<MutatingPolicyEvaluator>
  private readonly dispatcher: MutatingPolicyDispatcher

  constructor(private readonly init: PluginInitialization) {
    this.enabled = init.config.featureGates?.get(FEATURE_GATE) === true
    this.source = new PolicySource(init, {
      group: 'admissionregistration.k8s.io',
      version: 'v1beta1',
      policies: 'mutatingadmissionpolicies',
      bindings: 'mutatingadmissionpolicybindings',
      compile: compilePolicy,
    })
    this.dispatcher = new MutatingPolicyDispatcher(init, (attributes) => this.objectType(attributes))
  }

  forgetCachedReads(): void {
    this.source.invalidate()
  }

  handles(operation: AdmissionOperation): boolean {
    return this.enabled && OPERATIONS.has(operation)
  }

  /** Stops the namespace informer the bindings' selectors read. */
  stop(): void {
    stopNamespaceCache(this.init)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (isExcludedFromPolicies(attributes)) return
    const found = this.source.hooks()
    const hooks = found instanceof Promise ? await found : found
    if (hooks.length === 0) return
    await this.dispatcher.dispatch(attributes, hooks)
  }

  /** The schema of the request's kind (the reference's type converter): built in, a CRD's, or deduced. */
  private async objectType(attributes: AdmissionAttributes): Promise<ObjectType> {
    const { group, version, resource } = attributes.resource
    const stores = this.init.stores()
    let store = stores?.lookup(group, version, resource)
    const resolving = stores as Partial<Resolving> | undefined
    if (!store && typeof resolving?.resolve === 'function') store = await resolving.resolve(group, version, resource)
    if (!store) return { type: DEDUCED, builtIn: false }
    return { type: typeOf(store), builtIn: !store.strategy.customResource }
  }
}
