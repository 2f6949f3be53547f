/**
 * Validation of the rbac.authorization.k8s.io API group, after the reference's
 * `pkg/apis/rbac/validation/validation.go`: names are path segments (`system:basic-user`);
 * rules have verbs and either resources (with API groups) or, for cluster roles only,
 * non-resource URLs; aggregation selectors are valid; a binding's roleRef is in the RBAC group,
 * of a kind the binding may name, and may not change; subjects are known kinds.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, Rendered, goJSON, invalid, notSupported, required } from './field/index.js'
import { arr, obj, str } from './helpers.js'
import { labelSelectorJSON, selectorParseFails } from './label-selector.js'
import { validateLabelSelector } from './meta-v1.js'
import { nameIsDNSSubdomain, pathSegmentName } from './names.js'

type ErrorList = CauseLike[]
type Obj = Record<string, unknown>

export const RBAC_GROUP = 'rbac.authorization.k8s.io'

/** ValidatePolicyRule. */
export function validatePolicyRule(rule: Obj, isNamespaced: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  if (arr(rule.verbs).length === 0) errs.push(required(fldPath.child('verbs'), 'verbs must contain at least one value'))
  const urls = arr(rule.nonResourceURLs)
  if (urls.length > 0) {
    if (isNamespaced) errs.push(invalid(fldPath.child('nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'))
    if (arr(rule.apiGroups).length > 0 || arr(rule.resources).length > 0 || arr(rule.resourceNames).length > 0) {
      errs.push(invalid(fldPath.child('nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'))
    }
    return errs
  }
  if (arr(rule.apiGroups).length === 0) errs.push(required(fldPath.child('apiGroups'), 'resource rules must supply at least one api group'))
  if (arr(rule.resources).length === 0) errs.push(required(fldPath.child('resources'), 'resource rules must supply at least one resource'))
  return errs
}

function validateRules(o: KubeObject, isNamespaced: boolean): ErrorList {
  return arr(o.rules).flatMap((r, i) => validatePolicyRule(obj(r), isNamespaced, Path.of('rules').index(i)))
}

export function validateRole(o: KubeObject): ErrorList {
  return validateRules(o, true)
}

export function validateClusterRole(o: KubeObject): ErrorList {
  const errs = validateRules(o, false)
  if (o.aggregationRule !== undefined && o.aggregationRule !== null) {
    const selectors = arr(obj(o.aggregationRule).clusterRoleSelectors)
    const p = Path.of('aggregationRule', 'clusterRoleSelectors')
    if (selectors.length === 0) errs.push(required(p, 'at least one clusterRoleSelector required if aggregationRule is non-nil'))
    selectors.forEach((s, i) => {
      errs.push(...validateLabelSelector(s, { allowInvalidLabelValueInSelector: false }, p.index(i)))
      if (selectorParseFails(s)) errs.push(invalid(p.index(i), labelSelectorJSON(s), 'invalid label selector.'))
    })
  }
  return errs
}

/** ValidateRoleBindingSubject. */
export function validateRoleBindingSubject(subject: Obj, isNamespaced: boolean, fldPath: Path): ErrorList {
  const errs: ErrorList = []
  const name = str(subject.name)
  const apiGroup = str(subject.apiGroup)
  if (name === '') errs.push(required(fldPath.child('name'), ''))
  switch (str(subject.kind)) {
    case 'ServiceAccount':
      if (name !== '') for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(fldPath.child('name'), name, m))
      if (apiGroup !== '') errs.push(notSupported(fldPath.child('apiGroup'), apiGroup, ['']))
      if (!isNamespaced && str(subject.namespace) === '') errs.push(required(fldPath.child('namespace'), ''))
      break
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(fldPath.child('apiGroup'), apiGroup, [RBAC_GROUP]))
      break
    default:
      errs.push(notSupported(fldPath.child('kind'), str(subject.kind), ['ServiceAccount', 'User', 'Group']))
  }
  return errs
}

function validateBinding(o: KubeObject, kinds: string[], isNamespaced: boolean): ErrorList {
  const ref = obj(o.roleRef)
  const errs: ErrorList = []
  if (str(ref.apiGroup) !== RBAC_GROUP) errs.push(notSupported(Path.of('roleRef', 'apiGroup'), str(ref.apiGroup), [RBAC_GROUP]))
  if (!kinds.includes(str(ref.kind))) errs.push(notSupported(Path.of('roleRef', 'kind'), str(ref.kind), kinds))
  const name = str(ref.name)
  if (name === '') errs.push(required(Path.of('roleRef', 'name'), ''))
  else for (const m of pathSegmentName(name, false)) errs.push(invalid(Path.of('roleRef', 'name'), name, m))
  arr(o.subjects).forEach((s, i) => errs.push(...validateRoleBindingSubject(obj(s), isNamespaced, Path.of('subjects').index(i))))
  return errs
}

export function validateRoleBinding(o: KubeObject): ErrorList {
  return validateBinding(o, ['Role', 'ClusterRole'], true)
}

export function validateClusterRoleBinding(o: KubeObject): ErrorList {
  return validateBinding(o, ['ClusterRole'], false)
}

/** json.Marshal of the internal RoleRef (Go field names). */
function roleRefJSON(ref: Obj): Rendered {
  return new Rendered(`{"APIGroup":${goJSON(str(ref.apiGroup))},"Kind":${goJSON(str(ref.kind))},"Name":${goJSON(str(ref.name))}}`)
}

function roleRefUnchanged(o: KubeObject, old: KubeObject): ErrorList {
  const n = obj(o.roleRef)
  const p = obj(old.roleRef)
  const same = ['apiGroup', 'kind', 'name'].every((k) => str(n[k]) === str(p[k]))
  return same ? [] : [invalid(Path.of('roleRef'), roleRefJSON(n), 'cannot change roleRef')]
}

export function validateRoleBindingUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateRoleBinding(o), ...roleRefUnchanged(o, old)]
}

export function validateClusterRoleBindingUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateClusterRoleBinding(o), ...roleRefUnchanged(o, old)]
}

/** The rbac/v1 defaults: a binding's roleRef and its User and Group subjects in the RBAC group. */
export function defaultBinding(o: KubeObject): void {
  const ref = obj(o.roleRef)
  if (str(ref.apiGroup) === '') ref.apiGroup = RBAC_GROUP
  o.roleRef = ref
  for (const s of arr(o.subjects).map(obj)) {
    if (str(s.apiGroup) === '' && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP
  }
}
