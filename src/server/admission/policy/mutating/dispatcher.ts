/**
 * The MutatingAdmissionPolicy dispatcher (the reference's mutating/dispatcher.go and the generic
 * policy dispatcher): the policies and bindings that match the request, each binding once per
 * param, run in order; a policy's matchConditions decide whether it applies; its mutations are
 * applied one after the other, each seeing the object as the one before left it. A mutation's
 * failure is the policy's error (reason Invalid) and the next mutation still runs; a Status
 * error (an internal one) refuses the request at once. The errors the failurePolicy keeps
 * (Fail) refuse the request: 403, the first error as the message, each one a cause.
 *
 * Reinvocation: the reference reinvokes, once, after every mutating plugin has run, the
 * policies with `reinvocationPolicy: IfNeeded` that ran before a later change to the object.
 * The chain here has no reinvocation round, so this plugin runs its own second round right
 * after its first, for the IfNeeded policies a later policy's change concerns.
 */
import { isDeepStrictEqual } from 'node:util'
import type { KubeObject } from '../../../api/registry/object.js'
import { ApiError } from '../../../api/status-errors.js'
import { failureStatus } from '../../../http/status.js'
import { type AdmissionAttributes, nameForRefusal } from '../../attributes.js'
import type { PluginInitialization } from '../../plugins.js'
import { authorizerValue } from '../authorizer.js'
import { PolicyActivation, celValue } from '../composition.js'
import { failurePolicyOf, matchingHooks, requestNamespace } from '../dispatch.js'
import { evaluateMatchConditions } from '../match-conditions.js'
import type { MatchResult } from '../matching.js'
import type { Param } from '../params.js'
import { createAdmissionRequest, createNamespaceObject } from '../request.js'
import { nameOf, specOf, type PolicyHook } from '../sources.js'
import type { MutatingPolicyEvaluator } from './compile.js'
import { type ObjectType, runMutation } from './patch.js'

type Obj = Record<string, unknown>

/** One policy-binding-param to run (the reference's PolicyInvocation). */
interface Invocation {
  readonly hook: PolicyHook<MutatingPolicyEvaluator>
  readonly binding: KubeObject
  readonly param: Param
  readonly match: MatchResult
}

/** An error the failurePolicy decides on (the reference's PolicyError). */
interface PolicyError {
  readonly policy: KubeObject
  readonly binding?: KubeObject
  readonly message: string
  /** Invalid for the mutating dispatcher's own errors; none for configuration errors. */
  readonly reason?: string
}

function policyErrorText(e: PolicyError): string {
  return e.binding
    ? `policy '${nameOf(e.policy)}' with binding '${nameOf(e.binding)}' denied request: ${e.message}`
    : `policy ${JSON.stringify(nameOf(e.policy))} denied request: ${e.message}`
}

/** The reference's reinvocation key: policy, binding and param. */
function keyOf(invocation: Invocation): string {
  const param = invocation.param ? `${String(invocation.param.metadata.namespace ?? '')}/${nameOf(invocation.param)}` : ''
  return JSON.stringify([nameOf(invocation.hook.policy), nameOf(invocation.binding), param])
}

/** The policy's reinvocation state across the two rounds (the reference's policyReinvokeContext). */
class ReinvokeContext {
  private previouslyInvoked = new Set<string>()
  readonly toReinvoke = new Set<string>()
  changed = false

  requireReinvokingPreviouslyInvoked(): void {
    for (const key of this.previouslyInvoked) this.toReinvoke.add(key)
    this.previouslyInvoked = new Set()
  }

  addReinvocable(key: string): void {
    this.previouslyInvoked.add(key)
  }
}

export class MutatingPolicyDispatcher {
  constructor(
    private readonly init: PluginInitialization,
    private readonly objectType: (attributes: AdmissionAttributes) => Promise<ObjectType>,
  ) {}

  async dispatch(attributes: AdmissionAttributes, hooks: readonly PolicyHook<MutatingPolicyEvaluator>[]): Promise<void> {
    const errors: PolicyError[] = []
    const invocations: Invocation[] = []
    for (const outcome of await matchingHooks(hooks, attributes, this.init)) {
      if (outcome.error !== undefined) {
        errors.push({ policy: outcome.hook.policy, message: outcome.error })
        continue
      }
      for (const b of outcome.bindings) {
        if (b.error !== undefined) errors.push({ policy: outcome.hook.policy, binding: b.binding, message: b.error })
        else for (const param of b.params) invocations.push({ hook: outcome.hook, binding: b.binding, param, match: outcome.match })
      }
    }
    if (invocations.length === 0) return refuseFor(attributes, errors)
    const context = new ReinvokeContext()
    errors.push(...(await this.dispatchInvocations(attributes, invocations, context, false)))
    refuseFor(attributes, errors)
    // The reinvocation round, as a separate call of the plugin would be.
    if (context.changed && context.toReinvoke.size > 0) refuseFor(attributes, await this.dispatchInvocations(attributes, invocations, context, true))
  }

  private async dispatchInvocations(attributes: AdmissionAttributes, invocations: readonly Invocation[], context: ReinvokeContext, reinvoke: boolean): Promise<PolicyError[]> {
    const errors: PolicyError[] = []
    const namespaceObject = celValue(createNamespaceObject(await requestNamespace(attributes, this.init)))
    const oldObject = celValue(attributes.oldObject)
    const authorizer = authorizerValue(attributes, this.init)
    const objectType = await this.objectType(attributes)
    for (const invocation of invocations) {
      const { hook, binding, param, match } = invocation
      const evaluator = hook.evaluator
      const mutations = Array.isArray(specOf(hook.policy).mutations) ? (specOf(hook.policy).mutations as unknown[]) : []
      if (evaluator.mutations.length !== mutations.length) {
        throw internal(`expected ${mutations.length} compiled evaluators for policy ${nameOf(hook.policy)}, got ${evaluator.mutations.length}`)
      }
      const inputs = { oldObject, namespaceObject, authorizer, request: celValue(createAdmissionRequest(attributes, match.resource, match.kind)), params: celValue(param) }
      // Each mutation sees the object as the one before it left it.
      const activation = () => new PolicyActivation({ ...inputs, object: celValue(attributes.object) }, evaluator.variables)
      if (evaluator.matchConditions.length > 0) {
        const result = await evaluateMatchConditions(evaluator.matchConditions, activation(), failurePolicyOf(hook.policy))
        if (result.error !== undefined) {
          errors.push({ policy: hook.policy, binding, message: result.error, reason: 'Invalid' })
          continue
        }
        if (!result.matches) continue
      }
      const key = keyOf(invocation)
      if (reinvoke && !context.toReinvoke.has(key)) continue
      const before = structuredClone(attributes.object)
      for (const mutation of evaluator.mutations) {
        const object = attributes.object
        if (!object) continue
        try {
          replaceContents(object, await runMutation(mutation, activation(), object as unknown as Obj, objectType))
        } catch (err) {
          if (err instanceof ApiError) throw err
          errors.push({ policy: hook.policy, binding, message: (err as Error).message, reason: 'Invalid' })
        }
      }
      if (!isDeepStrictEqual(before, attributes.object)) {
        context.requireReinvokingPreviouslyInvoked()
        context.changed = true
      }
      if (specOf(hook.policy).reinvocationPolicy === 'IfNeeded') context.addReinvocable(key)
    }
    return errors
  }
}

/** The object the chain carries, given the mutated contents (plugins change it in place). */
function replaceContents(object: KubeObject, mutated: Obj): void {
  if (mutated === (object as unknown as Obj)) return
  const target = object as unknown as Obj
  for (const key of Object.keys(target)) delete target[key]
  Object.assign(target, mutated)
}

function internal(message: string): ApiError {
  return new ApiError(failureStatus(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }))
}

/** Refuses the request when the failurePolicy keeps an error (Fail), as the generic dispatcher. */
function refuseFor(attributes: AdmissionAttributes, errors: readonly PolicyError[]): void {
  const kept = errors.filter((e) => failurePolicyOf(e.policy) !== 'Ignore')
  if (kept.length > 0) throw refusal(attributes, kept)
}

/**
 * The generic dispatcher's refusal: admission.NewForbidden whose message is replaced by the
 * first error's (with its reason, when it has one), each error a cause.
 */
function refusal(attributes: AdmissionAttributes, errors: readonly PolicyError[]): ApiError {
  const { group, resource } = attributes.resource
  const messages = errors.map(policyErrorText)
  return new ApiError(
    failureStatus(403, errors[0]!.reason ?? 'Forbidden', messages[0]!, {
      name: nameForRefusal(attributes),
      ...(group ? { group } : {}),
      kind: resource,
      causes: messages.map((message) => ({ message })),
    }),
  )
}
