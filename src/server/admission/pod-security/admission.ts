/**
 * The PodSecurity admission plugin (the reference's plugin/pkg/admission/security/podsecurity
 * over k8s.io/pod-security-admission/admission): a namespace's
 * `pod-security.kubernetes.io/<mode>[-version]` labels (else the configured defaults) give the
 * levels pods there are held to. Enforce refuses a pod (403, `violates PodSecurity ...`); audit
 * leaves the `pod-security.kubernetes.io/audit-violations` audit annotation; warn adds a
 * `would violate PodSecurity ...` warning. Workload resources are only warned and audited on
 * their pod template. A namespace's labels must parse, and raising its enforce level warns of
 * the existing pods that would not be admitted. Exempt users, runtime classes and namespaces
 * pass, with the `pod-security.kubernetes.io/exempt` audit annotation.
 */
import { failureStatus } from '../../http/status.js'
import type { GenericStore } from '../../api/registry/generic-store.js'
import { Informer } from '../../api/registry/informer.js'
import type { KubeObject } from '../../api/registry/object.js'
import { ApiError, errors } from '../../api/status-errors.js'
import { invalid } from '../../api/validation/field/errors.js'
import { type AdmissionAttributes, CREATE, UPDATE, addAnnotation, addWarning } from '../attributes.js'
import { type ValidationInterface, handlesOnly } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { type PodLike, obj } from './check.js'
import { type PodSecurityConfiguration, defaultConfiguration, readConfiguration } from './configuration.js'
import { AggregateCheckResult, Evaluator } from './evaluator.js'
import {
  AUDIT_LEVEL_LABEL,
  AUDIT_VERSION_LABEL,
  ENFORCE_LEVEL_LABEL,
  ENFORCE_VERSION_LABEL,
  type LabelError,
  type LevelVersion,
  type Policy,
  WARN_LEVEL_LABEL,
  WARN_VERSION_LABEL,
  compareLevels,
  equivalentPolicies,
  fullyPrivileged,
  levelVersionString,
  policyToEvaluate,
  sameLevelVersion,
  sameVersion,
} from './levels.js'
import { extractPodSpec, hasPodSpec, isSignificantPodUpdate } from './pod-spec.js'

export const POD_SECURITY = 'PodSecurity'

/** The audit annotations' prefix (the reference's AuditAnnotationPrefix). */
const AUDIT_PREFIX = 'pod-security.kubernetes.io/'

/** The pod subresources that cannot change what the checks see. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status'])

const NAMESPACE_MAX_PODS_TO_CHECK = 3000
const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000

/** What the reference's Validate answers: allowed or the refusal, warnings, audit annotations. */
interface Response {
  refusal?: ApiError
  warnings?: string[]
  audit?: Record<string, string>
}

const ALLOWED: Response = {}
const exempt = (reason: 'namespace' | 'user' | 'runtimeClass'): Response => ({ audit: { exempt: reason } })

export class PodSecurity implements ValidationInterface {
  readonly handles = handlesOnly(CREATE, UPDATE)

  /** Namespaces, pods and the kinds with a pod template (validate's branches). */
  actsOn(group: string, resource: string): boolean {
    return (group === '' && (resource === 'namespaces' || resource === 'pods')) || hasPodSpec(group, resource)
  }
  private readonly configuration: PodSecurityConfiguration
  private readonly evaluator = new Evaluator()
  private informer: Informer | undefined
  private informerOver: GenericStore | undefined

  constructor(
    private readonly init: PluginInitialization,
    pluginConfig?: unknown,
  ) {
    this.configuration = pluginConfig === undefined ? defaultConfiguration() : readConfiguration(pluginConfig)
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    const { group, resource } = attributes.resource
    let response: Response
    if (group === '' && resource === 'namespaces') response = await this.validateNamespace(attributes)
    else if (group === '' && resource === 'pods') response = await this.validatePod(attributes)
    else if (hasPodSpec(group, resource)) response = await this.validatePodController(attributes)
    else return
    for (const warning of response.warnings ?? []) addWarning(attributes, warning)
    for (const [key, value] of Object.entries(response.audit ?? {})) addAnnotation(attributes, AUDIT_PREFIX + key, value)
    if (response.refusal) throw response.refusal
  }

  stop(): void {
    this.informer?.stop()
    this.informer = undefined
    this.informerOver = undefined
  }

  private policyToEvaluate(labels: unknown): { policy: Policy; errors: LabelError[] } {
    return policyToEvaluate(stringRecord(labels), this.configuration.defaults)
  }

  private exemptNamespace(namespace: string): boolean {
    return namespace !== '' && this.configuration.exemptions.namespaces.includes(namespace)
  }

  private exemptUser(username: string | undefined): boolean {
    return !!username && this.configuration.exemptions.usernames.includes(username)
  }

  private exemptRuntimeClass(runtimeClassName: unknown): boolean {
    return typeof runtimeClassName === 'string' && runtimeClassName !== '' && this.configuration.exemptions.runtimeClasses.includes(runtimeClassName)
  }

  /** The reference's ValidateNamespace: labels must parse; a stricter enforce level warns. */
  private async validateNamespace(a: AdmissionAttributes): Promise<Response> {
    if (a.subresource !== '' || !a.object) return ALLOWED
    const namespace = a.object
    const name = namespace.metadata.name ?? ''
    const { policy: newPolicy, errors: newErrors } = this.policyToEvaluate(namespace.metadata.labels)
    if (a.operation === CREATE) {
      if (newErrors.length > 0) return { refusal: invalidLabels(a, newErrors) }
      return this.exemptNamespaceWarning(name, newPolicy, namespace.metadata.labels)
    }
    if (a.operation !== UPDATE || !a.oldObject) return ALLOWED
    const { policy: oldPolicy, errors: oldErrors } = this.policyToEvaluate(a.oldObject.metadata.labels)
    // Invalid labels are refused when they change (those already stored do not block updates).
    if (newErrors.length > 0 && (oldErrors.length === 0 || JSON.stringify(newErrors) !== JSON.stringify(oldErrors))) return { refusal: invalidLabels(a, newErrors) }
    // No pods to dry-run: enforce unchanged, now privileged, or relaxed at the same version.
    if (sameLevelVersion(newPolicy.enforce, oldPolicy.enforce)) return ALLOWED
    if (newPolicy.enforce.level === 'privileged') return ALLOWED
    if (sameVersion(newPolicy.enforce.version, oldPolicy.enforce.version) && compareLevels(newPolicy.enforce.level, oldPolicy.enforce.level) < 1) return ALLOWED
    if (this.exemptNamespace(name)) return this.exemptNamespaceWarning(name, newPolicy, namespace.metadata.labels)
    return { warnings: await this.evaluatePodsInNamespace(name, newPolicy.enforce) }
  }

  /** The reference's ValidatePod: enforce, audit and warn on a pod's create or update. */
  private async validatePod(a: AdmissionAttributes): Promise<Response> {
    if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return ALLOWED
    if (this.exemptNamespace(a.namespace)) return exempt('namespace')
    if (this.exemptUser(a.userInfo?.name)) return exempt('user')
    const namespace = await this.namespace(a.namespace)
    if (!namespace) throw errors.internal(`failed to lookup namespace ${JSON.stringify(a.namespace)}`)
    const { policy, errors: labelErrors } = this.policyToEvaluate(namespace.metadata.labels)
    if (labelErrors.length === 0 && fullyPrivileged(policy)) return { audit: { 'enforce-policy': 'privileged:latest' } }
    if (!a.object) return ALLOWED
    if (a.operation === UPDATE && a.oldObject && !isSignificantPodUpdate(a.object, a.oldObject)) return ALLOWED
    return this.evaluatePod(a, policy, labelErrors, extractPodSpec('pods', a.object)!, true)
  }

  /** The reference's ValidatePodController: a workload's template is warned and audited only. */
  private async validatePodController(a: AdmissionAttributes): Promise<Response> {
    if (a.subresource !== '') return ALLOWED
    if (this.exemptNamespace(a.namespace)) return exempt('namespace')
    if (this.exemptUser(a.userInfo?.name)) return exempt('user')
    const namespace = await this.namespace(a.namespace)
    if (!namespace) return { audit: { error: `failed to lookup namespace ${JSON.stringify(a.namespace)}: namespace not found` } }
    const { policy, errors: labelErrors } = this.policyToEvaluate(namespace.metadata.labels)
    if (labelErrors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return ALLOWED
    const pod = a.object ? extractPodSpec(a.resource.resource, a.object) : undefined
    if (!pod) return ALLOWED
    return this.evaluatePod(a, policy, labelErrors, pod, false)
  }

  /** The reference's EvaluatePod: enforce (pods only), then audit, then warn unless refused. */
  private evaluatePod(a: AdmissionAttributes, policy: Policy, labelErrors: LabelError[], pod: PodLike, enforce: boolean): Response {
    if (this.exemptRuntimeClass(pod.spec.runtimeClassName)) return exempt('runtimeClass')
    const audit: Record<string, string> = {}
    if (labelErrors.length > 0) audit.error = `Failed to parse policy: ${aggregateLabelErrors(labelErrors)}`
    const cached = new Map<string, AggregateCheckResult>()
    const evaluate = (lv: LevelVersion) => {
      const key = levelVersionString(lv)
      let result = cached.get(key)
      if (!result) cached.set(key, (result = new AggregateCheckResult(this.evaluator.evaluatePod(lv, pod))))
      return result
    }
    let refusal: ApiError | undefined
    if (enforce) {
      audit['enforce-policy'] = levelVersionString(policy.enforce)
      const result = evaluate(policy.enforce)
      if (!result.allowed) refusal = forbidden(a, `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${result.forbiddenDetail()}`)
    }
    const auditResult = evaluate(policy.audit)
    if (!auditResult.allowed) audit['audit-violations'] = `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${auditResult.forbiddenDetail()}`
    const warnings: string[] = []
    // No warnings on a request refused anyway.
    if (!refusal) {
      const warnResult = evaluate(policy.warn)
      if (!warnResult.allowed) warnings.push(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${warnResult.forbiddenDetail()}`)
    }
    return { ...(refusal ? { refusal } : {}), warnings, audit }
  }

  /**
   * The reference's EvaluatePodsInNamespace: the existing pods (one per controller first, up to
   * 3000, for at most a second) against the new enforce level, as warnings grouped by reason.
   */
  private async evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const pods = this.init.stores()?.lookup('', 'v1', 'pods')
    let items: KubeObject[]
    try {
      items = pods ? (await pods.list({ namespace })).items : []
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level']
    }
    const deadline = Date.now() + NAMESPACE_POD_CHECK_TIMEOUT_MS
    const prioritized = this.prioritizePods(items)
    const total = prioritized.length
    const toCheck = prioritized.slice(0, NAMESPACE_MAX_PODS_TO_CHECK)
    let checked = toCheck.length
    const reasons: string[] = []
    const counts = new Map<string, { podName: string; podCount: number }>()
    for (const [i, pod] of toCheck.entries()) {
      const result = new AggregateCheckResult(this.evaluator.evaluatePod(enforce, extractPodSpec('pods', pod)!))
      if (!result.allowed) {
        const reason = result.forbiddenReason()
        const name = pod.metadata.name ?? ''
        const seen = counts.get(reason)
        if (!seen) {
          reasons.push(reason)
          counts.set(reason, { podName: name, podCount: 1 })
        } else {
          if (name < seen.podName) seen.podName = name
          seen.podCount++
        }
      }
      if (Date.now() > deadline) {
        checked = i + 1
        break
      }
    }
    const warnings: string[] = []
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`)
    if (reasons.length > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`)
    const decorated = reasons.map((reason) => {
      const { podName, podCount } = counts.get(reason)!
      if (podCount === 1) return `${podName}: ${reason}`
      if (podCount === 2) return `${podName} (and 1 other pod): ${reason}`
      return `${podName} (and ${podCount - 1} other pods): ${reason}`
    })
    return [...warnings, ...decorated.sort()]
  }

  /** Pods with an exempt runtime class left out; one pod per controller before the rest. */
  private prioritizePods(pods: readonly KubeObject[]): KubeObject[] {
    const first: KubeObject[] = []
    const duplicates: KubeObject[] = []
    const controllers = new Set<string>()
    for (const pod of pods) {
      if (this.exemptRuntimeClass(obj((pod as unknown as Record<string, unknown>).spec)?.runtimeClassName)) continue
      const owners = Array.isArray(pod.metadata.ownerReferences) ? pod.metadata.ownerReferences : []
      const controller = owners.map((o) => obj(o)).find((o) => o?.controller === true)
      if (!controller) {
        first.push(pod)
        continue
      }
      const uid = String(controller.uid ?? '')
      if (controllers.has(uid)) duplicates.push(pod)
      else {
        controllers.add(uid)
        first.push(pod)
      }
    }
    return [...first, ...duplicates]
  }

  /**
   * The reference's exemptNamespaceWarning: an exempt namespace labelled with a policy other
   * than privileged or the defaults is told its labels are ignored.
   */
  private exemptNamespaceWarning(name: string, policy: Policy, labels: unknown): Response {
    if (!this.exemptNamespace(name) || fullyPrivileged(policy) || equivalentPolicies(policy, this.configuration.defaults)) return ALLOWED
    const given = stringRecord(labels)
    const parts: string[] = []
    const mode = (label: string, lv: LevelVersion, levelLabel: string, versionLabel: string) => {
      if (lv.level !== 'privileged' && (levelLabel in given || versionLabel in given)) parts.push(`${label}=${levelVersionString(lv)}`)
    }
    mode('enforce', policy.enforce, ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL)
    mode('audit', policy.audit, AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL)
    mode('warn', policy.warn, WARN_LEVEL_LABEL, WARN_VERSION_LABEL)
    return { warnings: [`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`] }
  }

  /** The namespace from the informer's cache, else read live (just created, or the cache lags). */
  private async namespace(name: string): Promise<KubeObject | undefined> {
    const namespaces = this.init.stores()?.lookup('', 'v1', 'namespaces')
    if (!namespaces) return undefined
    if (this.informerOver !== namespaces) {
      this.informer?.stop()
      this.informer = new Informer(namespaces, { upsert: () => {}, remove: () => {} }, (err) => this.init.log(3, `PodSecurity namespace informer: ${err.message}`))
      this.informerOver = namespaces
      this.informer.start()
    }
    const cached = this.informer?.get(name)
    if (cached) return cached
    try {
      return await namespaces.get(undefined, name)
    } catch {
      return undefined
    }
  }
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(obj(value) ?? {})) if (typeof v === 'string') out[k] = v
  return out
}

/** The label errors as the reference's field.Invalid on metadata.labels[<key>]. */
function labelFieldErrors(labelErrors: readonly LabelError[]) {
  return labelErrors.map((e) => invalid(`metadata.labels[${e.label}]`, e.value, e.detail))
}

function aggregateLabelErrors(labelErrors: readonly LabelError[]): string {
  const texts = [...new Set(labelFieldErrors(labelErrors).map((e) => `${e.field}: ${e.message}`))]
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`
}

/** 422 for the namespace (the reference's invalidResponse: NewInvalid on the request's kind). */
function invalidLabels(a: AdmissionAttributes, labelErrors: readonly LabelError[]): ApiError {
  return errors.invalid(a.kind.group, a.kind.kind, a.name || (a.object?.metadata.name ?? ''), labelFieldErrors(labelErrors))
}

/**
 * 403 (the reference's NewForbidden on the request's resource and name): a request without a
 * name (generateName) is named by its resource alone.
 */
function forbidden(a: AdmissionAttributes, why: string): ApiError {
  const { group, resource } = a.resource
  const qualified = group === '' ? resource : `${resource}.${group}`
  const message = a.name === '' ? `${qualified} is forbidden: ${why}` : `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}`
  return new ApiError(failureStatus(403, 'Forbidden', message, { name: a.name, ...(group ? { group } : {}), kind: resource }))
}
