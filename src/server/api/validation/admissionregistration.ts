/**
 * Validation of admissionregistration.k8s.io/v1, after the reference's
 * `pkg/apis/admissionregistration/validation/validation.go`: ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration (webhook names, rules, policies, side effects, timeouts,
 * selectors, client configuration, admission review versions, match conditions compiled with
 * the project's CEL engine), ValidatingAdmissionPolicy (failure policy, paramKind, match
 * constraints, variables, validations, audit annotations; its status) and
 * ValidatingAdmissionPolicyBinding (policy name, paramRef, match resources, actions).
 */
import type { KubeObject } from '../registry/object.js'
import { CelCompileError, celEnvironment, compileCel } from '../../../core/cel/index.js'
import { AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE } from '../../../core/cel/libraries/authz.js'
import { registerJsonPatchLibrary } from '../../../core/cel/libraries/jsonpatch.js'
import { type ErrorList, Path, duplicate, forbidden, invalid, notSupported, required, tooMany } from './field/index.js'
import { arr, obj, semanticEqual, str } from './helpers.js'
import { validateQualifiedName } from './core/common.js'
import { type LabelSelectorValidationOptions, validateConditions, validateLabelSelector } from './meta-v1.js'
import { nameIsDNSSubdomain } from './names.js'
import { isDNS1035Label, isDNS1123Subdomain, isFullyQualifiedName, isValidPathSegmentName } from './strings.js'
import { validateWebhookService, validateWebhookURL } from './webhook-client.js'

type Obj = Record<string, unknown>

export const FAILURE_POLICIES = ['Fail', 'Ignore']
const MATCH_POLICIES = ['Equivalent', 'Exact']
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown']
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun']
export const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE']
const REINVOCATION_POLICIES = ['IfNeeded', 'Never']
const SCOPES = ['*', 'Cluster', 'Namespaced']
const POLICY_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge']
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn']
/** AcceptedAdmissionReviewVersions. */
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1']
const MAX_MATCH_CONDITIONS = 64
const MAX_AUDIT_ANNOTATIONS = 20
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024

const isSet = (v: unknown) => v !== undefined && v !== null
const strings = (v: unknown) => arr(v).map((x) => str(x))

export interface ValidationOptions {
  ignoreMatchConditions: boolean
  allowParamsInMatchConditions: boolean
  requireNoSideEffects: boolean
  requireRecognizedAdmissionReviewVersion: boolean
  requireUniqueWebhookNames: boolean
  allowInvalidLabelValueInSelector: boolean
}

export const CREATE_OPTIONS: ValidationOptions = {
  ignoreMatchConditions: false,
  allowParamsInMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
}

// ---- rules ----

function validateResources(resources: string[], fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (resources.length === 0) errs.push(required(fldPath))
  const resourcesWithWildcardSubresources = new Set<string>()
  const subresourcesWithWildcardResource = new Set<string>()
  let hasDoubleWildcard = false
  let hasSingleWildcard = false
  let hasResourceWithoutSubresource = false
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(required(fldPath.index(i)))
      return
    }
    if (resSub === '*/*') hasDoubleWildcard = true
    if (resSub === '*') hasSingleWildcard = true
    const slash = resSub.indexOf('/')
    if (slash < 0) {
      hasResourceWithoutSubresource = resSub !== '*'
      return
    }
    const res = resSub.slice(0, slash)
    const sub = resSub.slice(slash + 1)
    if (resourcesWithWildcardSubresources.has(res)) errs.push(invalid(fldPath.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`))
    if (subresourcesWithWildcardResource.has(sub)) errs.push(invalid(fldPath.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`))
    if (sub === '*') resourcesWithWildcardSubresources.add(res)
    if (res === '*') subresourcesWithWildcardResource.add(sub)
  })
  if (resources.length > 1 && hasDoubleWildcard) errs.push(invalid(fldPath, resources, "if '*/*' is present, must not specify other resources"))
  if (hasSingleWildcard && hasResourceWithoutSubresource) errs.push(invalid(fldPath, resources, "if '*' is present, must not specify other resources without subresources"))
  return errs
}

function validateRule(rule: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const groups = strings(rule.apiGroups)
  const versions = strings(rule.apiVersions)
  if (groups.length === 0) errs.push(required(fldPath.child('apiGroups')))
  if (groups.length > 1 && groups.includes('*')) errs.push(invalid(fldPath.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"))
  if (versions.length === 0) errs.push(required(fldPath.child('apiVersions')))
  if (versions.length > 1 && versions.includes('*')) errs.push(invalid(fldPath.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"))
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(fldPath.child('apiVersions').index(i)))
  })
  errs.push(...validateResources(strings(rule.resources), fldPath.child('resources')))
  if (isSet(rule.scope) && !SCOPES.includes(str(rule.scope))) errs.push(notSupported(fldPath.child('scope'), str(rule.scope), SCOPES))
  return errs
}

function validateRuleWithOperations(rule: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const operations = strings(rule.operations)
  if (operations.length === 0) errs.push(required(fldPath.child('operations')))
  if (operations.length > 1 && operations.includes('*')) errs.push(invalid(fldPath.child('operations'), operations, "if '*' is present, must not specify other operations"))
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(fldPath.child('operations').index(i), op, OPERATIONS))
  })
  errs.push(...validateRule(rule, fldPath))
  return errs
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, fldPath: Path): ErrorList {
  if (versions.length < 1) return [required(fldPath, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)]
  const errs: ErrorList = []
  const seen = new Set<string>()
  let hasAccepted = false
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(fldPath.index(i), v, 'duplicate version'))
      return
    }
    seen.add(v)
    for (const m of isDNS1035Label(v)) errs.push(invalid(fldPath.index(i), v, m))
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) hasAccepted = true
  })
  if (requireRecognized && !hasAccepted) errs.push(invalid(fldPath, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`))
  return errs
}

// ---- CEL ----

type CelUse = 'matchCondition' | 'validation' | 'messageExpression' | 'auditAnnotation' | 'variable'

const environments = new Map<string, ReturnType<typeof celEnvironment>>()

/**
 * The admission environment: `object`, `oldObject`, `request`, `namespaceObject`, `variables`,
 * `params` when the policy has a paramKind, and the authorizer where the reference declares it
 * (not for message expressions). `patchTypes`: mutation expressions also have the patch types'
 * library (`jsonpatch.escapeKey`), as the reference's HasPatchTypes declarations.
 */
export function admissionEnvironment(hasParams: boolean, hasAuthorizer: boolean, patchTypes = false) {
  const key = `${hasParams}/${hasAuthorizer}/${patchTypes}`
  let env = environments.get(key)
  if (!env) {
    env = celEnvironment({
      object: 'dyn',
      oldObject: 'dyn',
      request: 'dyn',
      namespaceObject: 'dyn',
      variables: 'map<string, dyn>',
      ...(hasParams ? { params: 'dyn' } : {}),
      ...(hasAuthorizer ? { authorizer: AUTHORIZER_TYPE, 'authorizer.requestResource': RESOURCE_CHECK_TYPE } : {}),
    })
    if (patchTypes) registerJsonPatchLibrary(env)
    environments.set(key, env)
  }
  return env
}

const RETURN_TYPES: Record<CelUse, string[]> = {
  matchCondition: ['bool'],
  validation: ['bool'],
  messageExpression: ['string'],
  auditAnnotation: ['string', 'null_type'],
  variable: [],
}

/**
 * Compiles an expression as the reference's plugin CEL compiler; a failure is its field error:
 * Invalid with the compiler's detail (`compilation failed: ERROR: <input>:1:5: ...`, `must
 * evaluate to bool`).
 */
export function validateCELExpression(expression: string, use: CelUse, hasParams: boolean, fldPath: Path, badValue: string = expression): ErrorList {
  const env = admissionEnvironment(hasParams, use !== 'messageExpression')
  const types = RETURN_TYPES[use]
  try {
    compileCel(env, expression, types.filter((t) => t !== 'null_type'))
    return []
  } catch (err) {
    if (!(err instanceof CelCompileError)) throw err
    const detail = err.kind === 'type' ? (types.length === 1 ? `must evaluate to ${types[0]}` : `must evaluate to one of [${types.join(' ')}]`) : err.message
    return [invalid(fldPath, badValue, detail)]
  }
}

export function validateMatchConditions(conditions: unknown, opts: ValidationOptions, fldPath: Path): ErrorList {
  const list = arr(conditions)
  const errs: ErrorList = []
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(fldPath, list.length, MAX_MATCH_CONDITIONS))
  const names = new Set<string>()
  list.forEach((c, i) => {
    const condition = obj(c)
    const path = fldPath.index(i)
    const expression = str(condition.expression).trim()
    if (expression.length === 0) errs.push(required(path.child('expression')))
    else errs.push(...validateCELExpression(expression, 'matchCondition', opts.allowParamsInMatchConditions, path.child('expression')))
    const name = str(condition.name)
    if (name.length === 0) errs.push(required(path.child('name')))
    else errs.push(...validateQualifiedName(name, path.child('name')))
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(path.child('name'), name))
      else names.add(name)
    }
  })
  return errs
}

// ---- webhooks ----

function validateWebhook(hook: Obj, mutating: boolean, opts: ValidationOptions, fldPath: Path): ErrorList {
  const errs = isFullyQualifiedName(fldPath.child('name'), str(hook.name))
  const selectorOpts: LabelSelectorValidationOptions = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }
  arr(hook.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(obj(r), fldPath.child('rules').index(i))))
  if (isSet(hook.failurePolicy) && !FAILURE_POLICIES.includes(str(hook.failurePolicy))) errs.push(notSupported(fldPath.child('failurePolicy'), str(hook.failurePolicy), FAILURE_POLICIES))
  if (isSet(hook.matchPolicy) && !MATCH_POLICIES.includes(str(hook.matchPolicy))) errs.push(notSupported(fldPath.child('matchPolicy'), str(hook.matchPolicy), MATCH_POLICIES))
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES
  if (!isSet(hook.sideEffects)) errs.push(required(fldPath.child('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`))
  else if (!allowedSideEffects.includes(str(hook.sideEffects))) errs.push(notSupported(fldPath.child('sideEffects'), str(hook.sideEffects), allowedSideEffects))
  const timeout = hook.timeoutSeconds
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errs.push(invalid(fldPath.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'))
  if (isSet(hook.namespaceSelector)) errs.push(...validateLabelSelector(hook.namespaceSelector, selectorOpts, fldPath.child('namespaceSelector')))
  if (isSet(hook.objectSelector)) errs.push(...validateLabelSelector(hook.objectSelector, selectorOpts, fldPath.child('objectSelector')))
  if (mutating && isSet(hook.reinvocationPolicy) && !REINVOCATION_POLICIES.includes(str(hook.reinvocationPolicy))) {
    errs.push(notSupported(fldPath.child('reinvocationPolicy'), str(hook.reinvocationPolicy), REINVOCATION_POLICIES))
  }
  const cc = obj(hook.clientConfig)
  if (isSet(cc.url) === isSet(cc.service)) errs.push(required(fldPath.child('clientConfig'), 'exactly one of url or service is required'))
  else if (isSet(cc.url)) errs.push(...validateWebhookURL(fldPath.child('clientConfig', 'url'), str(cc.url), true))
  else {
    const service = obj(cc.service)
    const port = typeof service.port === 'number' ? service.port : 0
    errs.push(...validateWebhookService(fldPath.child('clientConfig', 'service'), str(service.namespace), str(service.name), isSet(service.path) ? str(service.path) : undefined, port))
  }
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, opts, fldPath.child('matchConditions')))
  return errs
}

function validateWebhookConfiguration(o: KubeObject, mutating: boolean, opts: ValidationOptions): ErrorList {
  const errs: ErrorList = []
  const names = new Set<string>()
  arr(o.webhooks).forEach((h, i) => {
    const hook = obj(h)
    const path = Path.of('webhooks').index(i)
    errs.push(...validateWebhook(hook, mutating, opts, path))
    errs.push(...validateAdmissionReviewVersions(strings(hook.admissionReviewVersions), opts.requireRecognizedAdmissionReviewVersion, path.child('admissionReviewVersions')))
    const name = str(hook.name)
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(duplicate(path.child('name'), name))
      else names.add(name)
    }
  })
  return errs
}

/**
 * The options of an update: a rule the stored object already broke is not enforced again
 * (side effects, review versions, unique names, label values), and unchanged match conditions
 * are not compiled again.
 */
function updateOptions(o: KubeObject, old: KubeObject): ValidationOptions {
  const hooks = arr(o.webhooks).map(obj)
  const oldHooks = arr(old.webhooks).map(obj)
  const sameConditions = hooks.length === oldHooks.length && oldHooks.every((h, i) => semanticEqual(hooks[i]!.matchConditions, h.matchConditions))
  const oldNames = oldHooks.map((h) => str(h.name))
  const strict: LabelSelectorValidationOptions = { allowInvalidLabelValueInSelector: false }
  return {
    ignoreMatchConditions: sameConditions,
    allowParamsInMatchConditions: false,
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECT_CLASSES.includes(str(h.sideEffects))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = strings(h.admissionReviewVersions)
      return versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))
    }),
    requireUniqueWebhookNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValueInSelector: oldHooks.some(
      (h) => (isSet(h.namespaceSelector) && validateLabelSelector(h.namespaceSelector, strict, Path.of('x')).length > 0) || (isSet(h.objectSelector) && validateLabelSelector(h.objectSelector, strict, Path.of('x')).length > 0),
    ),
  }
}

export const validateValidatingWebhookConfiguration = (o: KubeObject): ErrorList => validateWebhookConfiguration(o, false, CREATE_OPTIONS)
export const validateValidatingWebhookConfigurationUpdate = (o: KubeObject, old: KubeObject): ErrorList => validateWebhookConfiguration(o, false, updateOptions(o, old))
export const validateMutatingWebhookConfiguration = (o: KubeObject): ErrorList => validateWebhookConfiguration(o, true, CREATE_OPTIONS)
export const validateMutatingWebhookConfigurationUpdate = (o: KubeObject, old: KubeObject): ErrorList => validateWebhookConfiguration(o, true, updateOptions(o, old))

// ---- ValidatingAdmissionPolicy ----

/** parseGroupVersion of the reference's validation (not schema.ParseGroupVersion). */
function parseGroupVersion(gv: string): { group: string; version: string } | { error: string } {
  if (gv.length === 0 || gv === '/') return { group: '', version: '' }
  const slashes = gv.split('/').length - 1
  if (slashes === 0) return { group: '', version: gv }
  if (slashes === 1) return { group: gv.slice(0, gv.indexOf('/')), version: gv.slice(gv.indexOf('/') + 1) }
  return { error: `unexpected GroupVersion string: ${gv}` }
}

export function validateParamKind(pk: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const apiVersion = str(pk.apiVersion)
  if (apiVersion.length === 0) errs.push(required(fldPath.child('apiVersion')))
  else {
    const gv = parseGroupVersion(apiVersion)
    if ('error' in gv) errs.push(invalid(fldPath.child('apiVersion'), apiVersion, gv.error))
    else {
      if (gv.group.length > 0) {
        const m = isDNS1123Subdomain(gv.group)
        if (m.length > 0) errs.push(invalid(fldPath.child('apiVersion'), gv.group, m.join(',')))
      }
      if (gv.version.length === 0) errs.push(invalid(fldPath.child('apiVersion'), apiVersion, 'version must be specified'))
      else {
        const m = isDNS1035Label(gv.version)
        if (m.length > 0) errs.push(invalid(fldPath.child('apiVersion'), gv.version, m.join(',')))
      }
    }
  }
  const kind = str(pk.kind)
  if (kind.length === 0) errs.push(required(fldPath.child('kind')))
  else {
    const m = isDNS1035Label(kind.toLowerCase())
    if (m.length > 0) errs.push(invalid(fldPath.child('kind'), kind, `may have mixed case, but should otherwise match: ${m.join(',')}`))
  }
  return errs
}

function validateNamedRuleWithOperations(rule: Obj, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const names = new Set<string>()
  strings(rule.resourceNames).forEach((name, i) => {
    for (const m of isValidPathSegmentName(name)) errs.push(invalid(fldPath.child('resourceNames').index(i), name, m))
    if (names.has(name)) errs.push(duplicate(fldPath.child('resourceNames').index(i), name))
    else names.add(name)
  })
  errs.push(...validateRuleWithOperations(rule, fldPath))
  return errs
}

export function validateMatchResources(value: unknown, fldPath: Path): ErrorList {
  if (!isSet(value)) return []
  const mc = obj(value)
  const errs: ErrorList = []
  if (!isSet(mc.matchPolicy)) errs.push(required(fldPath.child('matchPolicy')))
  else if (!MATCH_POLICIES.includes(str(mc.matchPolicy))) errs.push(notSupported(fldPath.child('matchPolicy'), str(mc.matchPolicy), MATCH_POLICIES))
  if (!isSet(mc.namespaceSelector)) errs.push(required(fldPath.child('namespaceSelector')))
  else errs.push(...validateLabelSelector(mc.namespaceSelector, {}, fldPath.child('namespaceSelector')))
  if (!isSet(mc.objectSelector)) errs.push(required(fldPath.child('objectSelector')))
  else errs.push(...validateLabelSelector(mc.objectSelector, {}, fldPath.child('objectSelector')))
  arr(mc.resourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), fldPath.child('resourceRules').index(i))))
  arr(mc.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), fldPath.child('excludeResourceRules').index(i))))
  return errs
}

const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'])

export function validateVariable(v: Obj, hasParams: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(v.name)
  if (name.trim() === '') errs.push(required(fldPath.child('name'), 'name is not specified'))
  else if (!CEL_IDENTIFIER.test(name) || CEL_RESERVED.has(name)) errs.push(invalid(fldPath.child('name'), name, 'name is not a valid CEL identifier'))
  const expression = str(v.expression)
  if (expression.trim() === '') errs.push(required(fldPath.child('expression'), 'expression is not specified'))
  else errs.push(...validateCELExpression(expression, 'variable', hasParams, fldPath.child('expression')))
  return errs
}

function validateValidation(v: Obj, hasParams: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const expression = str(v.expression)
  const message = str(v.message)
  const messageExpression = str(v.messageExpression)
  if (expression.trim().length === 0) errs.push(required(fldPath.child('expression'), 'expression is not specified'))
  else errs.push(...validateCELExpression(expression, 'validation', hasParams, fldPath.child('expression')))
  if (messageExpression.length > 0 && messageExpression.trim().length === 0) errs.push(invalid(fldPath.child('messageExpression'), messageExpression, 'must be non-empty if specified'))
  else if (messageExpression.trim().length !== 0) errs.push(...validateCELExpression(messageExpression, 'messageExpression', hasParams, fldPath.child('messageExpression')))
  if (message.length > 0 && message.trim().length === 0) errs.push(invalid(fldPath.child('message'), message, 'message must be non-empty if specified'))
  else if (/[\n\r]/.test(message.trim())) errs.push(invalid(fldPath.child('message'), message, 'message must not contain line breaks'))
  if (isSet(v.reason) && !POLICY_REASONS.includes(str(v.reason))) errs.push(notSupported(fldPath.child('reason'), str(v.reason), POLICY_REASONS))
  return errs
}

function validateAuditAnnotation(policyName: string, a: Obj, hasParams: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const key = str(a.key)
  if (policyName.length !== 0) errs.push(...validateQualifiedName(`${policyName}/${key}`, fldPath.child('key')))
  else errs.push(invalid(fldPath.child('key'), key, 'requires metadata.name be non-empty'))
  const value = str(a.valueExpression)
  const trimmed = value.trim()
  if (trimmed.length === 0) errs.push(required(fldPath.child('valueExpression'), 'valueExpression is not specified'))
  else if (Buffer.byteLength(trimmed) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
    errs.push(required(fldPath.child('valueExpression'), `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`))
  } else errs.push(...validateCELExpression(trimmed, 'auditAnnotation', hasParams, fldPath.child('valueExpression'), value))
  return errs
}

function validateValidatingAdmissionPolicySpec(name: string, spec: Obj, ignoreMatchConditions: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (!isSet(spec.failurePolicy)) errs.push(required(fldPath.child('failurePolicy')))
  else if (!FAILURE_POLICIES.includes(str(spec.failurePolicy))) errs.push(notSupported(fldPath.child('failurePolicy'), str(spec.failurePolicy), FAILURE_POLICIES))
  const hasParams = isSet(spec.paramKind)
  if (hasParams) errs.push(...validateParamKind(obj(spec.paramKind), fldPath.child('paramKind')))
  if (!isSet(spec.matchConstraints)) errs.push(required(fldPath.child('matchConstraints')))
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, fldPath.child('matchConstraints')))
    if (arr(obj(spec.matchConstraints).resourceRules).length === 0) errs.push(required(fldPath.child('matchConstraints', 'resourceRules')))
  }
  if (!ignoreMatchConditions) {
    errs.push(...validateMatchConditions(spec.matchConditions, { ...CREATE_OPTIONS, allowParamsInMatchConditions: hasParams }, fldPath.child('matchConditions')))
  }
  arr(spec.variables).forEach((v, i) => errs.push(...validateVariable(obj(v), hasParams, fldPath.child('variables').index(i))))
  const validations = arr(spec.validations)
  const annotations = arr(spec.auditAnnotations)
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(required(fldPath.child('validations'), 'validations or auditAnnotations must contain at least one item'))
    errs.push(required(fldPath.child('auditAnnotations'), 'validations or auditAnnotations must contain at least one item'))
    return errs
  }
  validations.forEach((v, i) => errs.push(...validateValidation(obj(v), hasParams, fldPath.child('validations').index(i))))
  if (isSet(spec.auditAnnotations)) {
    if (annotations.length > MAX_AUDIT_ANNOTATIONS) errs.push(invalid(fldPath.child('auditAnnotations'), annotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`))
    const keys = new Set<string>()
    annotations.forEach((a, i) => {
      const path = fldPath.child('auditAnnotations').index(i)
      errs.push(...validateAuditAnnotation(name, obj(a), hasParams, path))
      const key = str(obj(a).key)
      if (keys.has(key)) errs.push(duplicate(path.child('key'), key))
      keys.add(key)
    })
  }
  return errs
}

/** ValidateValidatingAdmissionPolicy (without the metadata). */
export function validateValidatingAdmissionPolicy(o: KubeObject): ErrorList {
  return validateValidatingAdmissionPolicySpec(str(o.metadata.name), obj(o.spec), false, Path.of('spec'))
}

/** ValidateValidatingAdmissionPolicyUpdate: match conditions not compiled again when they and paramKind are unchanged. */
export function validateValidatingAdmissionPolicyUpdate(o: KubeObject, old: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const oldSpec = obj(old.spec)
  const ignore = semanticEqual(spec.paramKind, oldSpec.paramKind) && semanticEqual(spec.matchConditions, oldSpec.matchConditions)
  return validateValidatingAdmissionPolicySpec(str(o.metadata.name), spec, ignore, Path.of('spec'))
}

/** ValidateValidatingAdmissionPolicyStatusUpdate: the type-checking warnings and the conditions. */
export function validateValidatingAdmissionPolicyStatusUpdate(o: KubeObject): ErrorList {
  const status = obj(o.status)
  const errs: ErrorList = []
  if (isSet(status.typeChecking)) {
    arr(obj(status.typeChecking).expressionWarnings).forEach((w, i) => {
      const path = Path.of('status', 'typeChecking', 'expressionWarnings').index(i)
      const warning = obj(w)
      if (str(warning.warning) === '') errs.push(required(path.child('warning')))
      if (str(warning.fieldRef).trim() === '') errs.push(required(path.child('fieldRef')))
    })
  }
  errs.push(...validateConditions(status.conditions, Path.of('status', 'conditions')))
  return errs
}

// ---- ValidatingAdmissionPolicyBinding ----

export function validateParamRef(value: unknown, fldPath: Path): ErrorList {
  if (!isSet(value)) return []
  const pr = obj(value)
  const errs: ErrorList = []
  const name = str(pr.name)
  if (name.length > 0) {
    for (const m of isValidPathSegmentName(name)) errs.push(invalid(fldPath.child('name'), name, m))
    if (isSet(pr.selector)) errs.push(forbidden(fldPath.child('name'), 'name and selector are mutually exclusive'))
  }
  if (isSet(pr.selector)) {
    errs.push(...validateLabelSelector(pr.selector, {}, fldPath.child('selector')))
    if (name.length > 0) errs.push(forbidden(fldPath.child('selector'), 'name and selector are mutually exclusive'))
  }
  if (name.length === 0 && !isSet(pr.selector)) errs.push(required(fldPath, 'one of name or selector must be specified'))
  const action = str(pr.parameterNotFoundAction)
  if (action.length === 0) errs.push(required(fldPath.child('parameterNotFoundAction')))
  else if (action !== 'Deny' && action !== 'Allow') errs.push(notSupported(fldPath.child('parameterNotFoundAction'), action, ['Deny', 'Allow']))
  return errs
}

function validateValidationActions(value: unknown, fldPath: Path): ErrorList {
  const actions = strings(value)
  const errs: ErrorList = []
  const seen = new Set<string>()
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(notSupported(fldPath.index(i), a, VALIDATION_ACTIONS))
    if (seen.has(a)) errs.push(duplicate(fldPath.index(i), a))
    seen.add(a)
  })
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalid(fldPath, actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'))
  }
  if (seen.size === 0) errs.push(required(fldPath, 'at least one validation action is required'))
  return errs
}

/** A binding's `policyName`: required, a DNS subdomain (both policy binding kinds). */
export function validateBindingPolicyName(value: unknown, fldPath: Path): ErrorList {
  const policyName = str(value)
  if (policyName.length === 0) return [required(fldPath)]
  return nameIsDNSSubdomain(policyName, false).map((m) => invalid(fldPath, policyName, m))
}

/** ValidateValidatingAdmissionPolicyBinding (without the metadata); the reference spells `matchResouces` in its path. */
export function validateValidatingAdmissionPolicyBinding(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const fldPath = Path.of('spec')
  const errs: ErrorList = []
  errs.push(...validateBindingPolicyName(spec.policyName, fldPath.child('policyName')))
  errs.push(...validateParamRef(spec.paramRef, fldPath.child('paramRef')))
  errs.push(...validateMatchResources(spec.matchResources, fldPath.child('matchResouces')))
  errs.push(...validateValidationActions(spec.validationActions, fldPath.child('validationActions')))
  return errs
}
