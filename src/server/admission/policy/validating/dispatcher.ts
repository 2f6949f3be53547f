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
import type { GroupVersionResource } from '../matching.js'
import { failurePolicyOf, isExcludedFromPolicies, matchingHooks, requestNamespace } from '../dispatch.js'
import { createAdmissionRequest, createNamespaceObject } from '../request.js'
import { PolicySource, nameOf, specOf } from '../sources.js'
import { type CompiledPolicy, compilePolicy } from './compile.js'
import { type PolicyDecision, validate } from './validator.js'

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

  handles(): boolean {
    return true
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (isExcludedFromPolicies(attributes)) return
    const hooks = await this.source.hooks()
    if (hooks.length === 0) return
    const denied: DeniedDecision[] = []
    const validationFailures: ValidationFailureValue[] = []
    const configError = (message: string, policy: KubeObject, binding?: KubeObject) => {
      const failurePolicy = failurePolicyOf(policy)
      if (failurePolicy === 'Ignore') return
      const text = failurePolicy === 'Fail' ? message : `unrecognized failure policy: '${failurePolicy}'`
      denied.push({ decision: { message: text }, policy, ...(binding ? { binding } : {}) })
    }
    const object = celValue(attributes.object)
    const authorizer = authorizerValue(attributes, this.init)
    const oldObject = celValue(attributes.oldObject)
    // The namespace is read once, for the first binding that needs it.
    let namespace: Promise<unknown> | undefined
    const namespaceObject = () => (namespace ??= requestNamespace(attributes, this.init).then((ns) => celValue(createNamespaceObject(ns))))
    // The request variable for each resource and kind a policy matched as, made once.
    const requests = new Map<string, unknown>()
    const requestFor = (resource: GroupVersionResource, kind: GroupVersionKind) => {
      const key = `${resource.group}/${resource.version}/${resource.resource}/${kind.group}/${kind.version}/${kind.kind}`
      if (!requests.has(key)) requests.set(key, celValue(createAdmissionRequest(attributes, resource, kind)))
      return requests.get(key)
    }
    for (const outcome of await matchingHooks(hooks, attributes, this.init)) {
      const { hook } = outcome
      if (outcome.error !== undefined) {
        configError(outcome.error, hook.policy)
        continue
      }
      const collector = new AuditAnnotationCollector()
      for (const bindingOutcome of outcome.bindings) {
        const { binding } = bindingOutcome
        if (bindingOutcome.error !== undefined) {
          configError(bindingOutcome.error, hook.policy, binding)
          continue
        }
        if (bindingOutcome.params.length === 0) continue
        const namespaceValue = await namespaceObject()
        const request = requestFor(outcome.match.resource, outcome.match.kind)
        const matchRequest = requestFor(attributes.resource, outcome.match.kind)
        const actions = (Array.isArray(specOf(binding).validationActions) ? specOf(binding).validationActions : []) as string[]
        for (const param of bindingOutcome.params) {
          const base = { object, oldObject, params: celValue(param), authorizer }
          const expressions = new PolicyActivation({ ...base, request, namespaceObject: namespaceValue }, hook.evaluator.variables)
          const result = await validate(hook.evaluator, {
            // Only a policy with matchConditions needs their activation.
            matchConditions: hook.evaluator.matchConditions.length > 0 ? new PolicyActivation({ ...base, request: matchRequest, namespaceObject: null }, hook.evaluator.variables) : expressions,
            expressions,
          })
          result.decisions.forEach((decision, index) => {
            if (decision.action !== 'deny') return
            for (const action of actions) {
              if (action === 'Deny') denied.push({ decision, policy: hook.policy, binding })
              else if (action === 'Audit') {
                validationFailures.push({ message: decision.message, policy: String(specOf(binding).policyName ?? ''), binding: nameOf(binding), expressionIndex: index, validationActions: actions })
              }
              else if (action === 'Warn') addWarning(attributes, `Validation failed for ValidatingAdmissionPolicy '${nameOf(hook.policy)}' with binding '${nameOf(binding)}': ${decision.message}`)
            }
          })
          for (const annotation of result.auditAnnotations) {
            if (annotation.action === 'publish') collector.add(annotation.key, annotation.value!.slice(0, MAX_AUDIT_ANNOTATION_VALUE))
            else if (annotation.action === 'error') denied.push({ decision: { message: annotation.error ?? '' }, policy: hook.policy, binding })
          }
        }
      }
      collector.publish(nameOf(hook.policy), attributes, this.init)
    }
    if (validationFailures.length > 0) this.publishValidationFailures(attributes, validationFailures)
    if (denied.length > 0) throw this.refusal(attributes, denied[0]!)
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
