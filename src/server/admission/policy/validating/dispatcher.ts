/**
 * The ValidatingAdmissionPolicy plugin (the reference's policy/validating plugin and
 * dispatcher): for each stored policy that applies and each of its bindings that applies, the
 * policy is evaluated once per param; a denied validation acts by the binding's
 * `validationActions`: Deny refuses the request (the first denial, in order, names the policy,
 * binding and message, with the validation's reason and code), Warn adds a `Warning` header,
 * Audit the `validation.policy.admission.k8s.io/validation_failure` audit annotation. Audit
 * annotations are published as `<policy>/<key>`. A policy or binding that cannot be applied
 * (see ../dispatch.ts) refuses under failurePolicy Fail and is skipped under Ignore.
 */
import { failureStatus } from '../../../http/status.js'
import { ApiError } from '../../../api/status-errors.js'
import type { KubeObject } from '../../../api/registry/object.js'
import { type AdmissionAttributes, addAnnotation, addWarning, nameForRefusal, qualifiedResource } from '../../attributes.js'
import type { ValidationInterface } from '../../interfaces.js'
import type { PluginInitialization } from '../../plugins.js'
import { authorizerValue } from '../authorizer.js'
import { PolicyActivation, celValue } from '../composition.js'
import type { GroupVersionKind } from '../kinds.js'
import type { GroupVersionResource, MatchResult } from '../matching.js'
import type { Param } from '../params.js'
import { failurePolicyOf, isExcludedFromPolicies, matchingHooks, requestNamespace } from '../dispatch.js'
import { createAdmissionRequest, createNamespaceObject } from '../request.js'
import { type PolicyHook, PolicySource, nameOf, specOf } from '../sources.js'
import { type CompiledPolicy, compilePolicy } from './compile.js'
import { type PolicyDecision, validate } from './validator.js'
import { stopNamespaceCache } from '../../namespace-cache.js'

export const VALIDATING_ADMISSION_POLICY = 'ValidatingAdmissionPolicy'

interface DeniedDecision {
  readonly decision: Pick<PolicyDecision, 'message' | 'reason'>
  readonly policy: KubeObject
  readonly binding?: KubeObject
}

/** maxAuditAnnotationValueLength. */
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024
const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure'
/** maxValidationFailures: about 10 KB of audit annotation. */
const MAX_VALIDATION_FAILURES = 50

/** One entry of the validation_failure annotation, its fields in the reference's order. */
interface ValidationFailureValue {
  message: string
  policy: string
  binding: string
  expressionIndex: number
  validationActions: string[]
}

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 }

export class ValidatingAdmissionPolicy implements ValidationInterface {
  private readonly source: PolicySource<CompiledPolicy>

  constructor(private readonly init: PluginInitialization) {
    this.source = new PolicySource(init, {
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      policies: 'validatingadmissionpolicies',
      bindings: 'validatingadmissionpolicybindings',
      compile: compilePolicy,
    })
  }

  forgetCachedReads(): void {
    this.source.invalidate()
  }

  handles(): boolean {
    return true
  }

  /** Stops the namespace informer the selectors read. */
  stop(): void {
    stopNamespaceCache(this.init)
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (isExcludedFromPolicies(attributes)) return
    const found = this.source.hooks()
    const hooks = found instanceof Promise ? await found : found
    if (hooks.length === 0) return
    const request = new RequestEvaluation(attributes, this.init)
    for (const outcome of await matchingHooks(hooks, attributes, this.init)) {
      if (outcome.error !== undefined) {
        request.configError(outcome.error, outcome.hook.policy)
        continue
      }
      // Most policies a request meets have no binding that applies to it: nothing to collect.
      if (outcome.bindings.length === 0) continue
      const collector = new AuditAnnotationCollector()
      for (const bindingOutcome of outcome.bindings) {
        if (bindingOutcome.error !== undefined) request.configError(bindingOutcome.error, outcome.hook.policy, bindingOutcome.binding)
        else await request.evaluateBinding(outcome.hook, outcome.match, bindingOutcome.binding, bindingOutcome.params, collector)
      }
      collector.publish(nameOf(outcome.hook.policy), attributes, this.init)
    }
    if (request.validationFailures.length > 0) this.publishValidationFailures(attributes, request.validationFailures)
    if (request.denied.length > 0) throw this.refusal(attributes, request.denied[0]!)
  }

  /** The request's audited failures, as one JSON list (at most maxValidationFailures). */
  private publishValidationFailures(attributes: AdmissionAttributes, failures: ValidationFailureValue[]): void {
    const value = JSON.stringify(failures.slice(0, MAX_VALIDATION_FAILURES))
    try {
      addAnnotation(attributes, VALIDATION_FAILURE_KEY, value)
    } catch (err) {
      const which = failures.map((f) => `${f.policy}/${f.binding}`).join(', ')
      this.init.log(2, `Failed to set admission audit annotation ${VALIDATION_FAILURE_KEY} to ${value} for ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings ${which}: ${(err as Error).message}`)
    }
  }

  /** admission.NewForbidden with the decision's reason and its code, and the message as a cause. */
  private refusal(attributes: AdmissionAttributes, denied: DeniedDecision): ApiError {
    const policyName = nameOf(denied.policy)
    const message = denied.binding
      ? `ValidatingAdmissionPolicy '${policyName}' with binding '${nameOf(denied.binding)}' denied request: ${denied.decision.message}`
      : `ValidatingAdmissionPolicy '${policyName}' denied request: ${denied.decision.message}`
    const reason = denied.decision.reason || 'Invalid'
    const name = nameForRefusal(attributes)
    const { group, resource } = attributes.resource
    return new ApiError(
      failureStatus(CODES[reason] ?? 422, reason, `${qualifiedResource(attributes)} "${name}" is forbidden: ${message}`, {
        name,
        ...(group ? { group } : {}),
        kind: resource,
        causes: [{ message }],
      }),
    )
  }
}

/**
 * One request's evaluation across the policies: what it converts once (the object, the old
 * object, the namespace, the request variable per matched kind) and what the policies decide
 * (the denials in order, the audited failures, the warnings it adds).
 */
class RequestEvaluation {
  readonly denied: DeniedDecision[] = []
  readonly validationFailures: ValidationFailureValue[] = []
  /** The objects and the authorizer as CEL values, made for the first binding that applies (none may). */
  private converted?: { readonly object: unknown; readonly oldObject: unknown; readonly authorizer: unknown }
  private namespace?: unknown
  private readonly requests = new Map<string, unknown>()
  private ownRequest?: unknown

  constructor(
    private readonly attributes: AdmissionAttributes,
    private readonly init: PluginInitialization,
  ) {}

  private inputs(): { readonly object: unknown; readonly oldObject: unknown; readonly authorizer: unknown } {
    const { attributes } = this
    return (this.converted ??= { object: celValue(attributes.object), oldObject: celValue(attributes.oldObject), authorizer: authorizerValue(attributes, this.init) })
  }

  /** A policy or binding that cannot be applied: refused under Fail, skipped under Ignore. */
  configError(message: string, policy: KubeObject, binding?: KubeObject): void {
    const failurePolicy = failurePolicyOf(policy)
    if (failurePolicy === 'Ignore') return
    const text = failurePolicy === 'Fail' ? message : `unrecognized failure policy: '${failurePolicy}'`
    this.denied.push({ decision: { message: text }, policy, ...(binding ? { binding } : {}) })
  }

  /** The policy evaluated once per param of a binding that applies, its decisions acted on. */
  async evaluateBinding(hook: PolicyHook<CompiledPolicy>, match: MatchResult, binding: KubeObject, params: readonly Param[], collector: AuditAnnotationCollector): Promise<void> {
    if (params.length === 0) return
    const namespace = this.namespaceObject()
    const namespaceObject = namespace instanceof Promise ? await namespace : namespace
    const request = this.requestFor(match.resource, match.kind)
    const { variables } = hook.evaluator
    const { object, oldObject, authorizer } = this.inputs()
    for (const param of params) {
      // Written out, not spread from a shared base: one such object per binding a request meets.
      const params = celValue(param)
      const expressions = new PolicyActivation({ object, oldObject, params, authorizer, request, namespaceObject }, variables)
      // The match conditions see no namespace object and the request's own resource; only a policy with some needs their activation.
      const matchConditions =
        hook.evaluator.matchConditions.length > 0
          ? new PolicyActivation({ object, oldObject, params, authorizer, request: this.requestFor(this.attributes.resource, match.kind), namespaceObject: null }, variables)
          : expressions
      const result = await validate(hook.evaluator, { matchConditions, expressions })
      result.decisions.forEach((decision, index) => this.act(hook.policy, binding, decision, index))
      for (const annotation of result.auditAnnotations) {
        if (annotation.action === 'publish') collector.add(annotation.key, annotation.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE))
        else if (annotation.action === 'error') this.denied.push({ decision: { message: annotation.error ?? '' }, policy: hook.policy, binding })
      }
    }
  }

  /** A denied validation acts by the binding's validationActions. */
  private act(policy: KubeObject, binding: KubeObject, decision: PolicyDecision, index: number): void {
    if (decision.action !== 'deny') return
    const spec = specOf(binding)
    const actions = (Array.isArray(spec.validationActions) ? spec.validationActions : []) as string[]
    for (const action of actions) {
      if (action === 'Deny') {
        this.denied.push({ decision, policy, binding })
      } else if (action === 'Audit') {
        this.validationFailures.push({ message: decision.message, policy: String(spec.policyName ?? ''), binding: nameOf(binding), expressionIndex: index, validationActions: actions })
      } else if (action === 'Warn') {
        addWarning(this.attributes, `Validation failed for ValidatingAdmissionPolicy '${nameOf(policy)}' with binding '${nameOf(binding)}': ${decision.message}`)
      }
    }
  }

  /** The namespace, read once, for the first binding that needs it. */
  private namespaceObject(): unknown {
    if (this.namespace === undefined) {
      const read = requestNamespace(this.attributes, this.init)
      this.namespace = read instanceof Promise ? read.then(namespaceValue) : namespaceValue(read)
    }
    return this.namespace
  }

  /** The request variable for each resource and kind a policy matched as, made once. */
  private requestFor(resource: GroupVersionResource, kind: GroupVersionKind): unknown {
    // The common case, the request's own resource and kind, without building a key.
    if (resource === this.attributes.resource && kind === this.attributes.kind) return (this.ownRequest ??= celValue(createAdmissionRequest(this.attributes, resource, kind)))
    const key = `${resource.group}/${resource.version}/${resource.resource}/${kind.group}/${kind.version}/${kind.kind}`
    if (!this.requests.has(key)) this.requests.set(key, celValue(createAdmissionRequest(this.attributes, resource, kind)))
    return this.requests.get(key)
  }
}

/**
 * The namespace as the `namespaceObject` CEL value, made once per namespace object of the
 * informer (the same object until the namespace changes; CEL values are never changed).
 */
const namespaceValues = new WeakMap<KubeObject, unknown>()

function namespaceValue(namespace: KubeObject | undefined): unknown {
  if (!namespace) return celValue(createNamespaceObject(namespace))
  let value = namespaceValues.get(namespace)
  if (value === undefined) namespaceValues.set(namespace, (value = celValue(createNamespaceObject(namespace))))
  return value
}

/** The audit annotations of one policy across its bindings: distinct values joined by `, `. */
class AuditAnnotationCollector {
  private readonly values = new Map<string, string[]>()

  add(key: string, value: string): void {
    const list = this.values.get(key) ?? []
    if (!list.includes(value)) list.push(value)
    this.values.set(key, list)
  }

  publish(policyName: string, attributes: AdmissionAttributes, init: PluginInitialization): void {
    for (const [key, values] of this.values) {
      const value = values.join(', ')
      try {
        addAnnotation(attributes, `${policyName}/${key}`, value)
      } catch (err) {
        init.log(2, `Failed to set admission audit annotation ${key} to ${value} for ValidatingAdmissionPolicy ${policyName}: ${(err as Error).message}`)
      }
    }
  }
}
