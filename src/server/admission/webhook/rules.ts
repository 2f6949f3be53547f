/**
 * Whether a webhook's `rules` match a request (the reference's predicates/rules Matcher):
 * operations, apiGroups, apiVersions, resources (`*`, `*\/*`, `pods/*`, `*\/status`, `pods/status`)
 * and scope; and the kinds no webhook ever sees (IsExemptAdmissionConfigurationResource), so
 * that a broken webhook cannot lock out the configuration that would fix it.
 */
import type { AdmissionAttributes } from '../attributes.js'
import type { Obj } from './configurations.js'

// Both read the rule's lists as they are, without copying them: every webhook and policy rule is
// matched against every request.
function exact(list: unknown, value: string): boolean {
  if (!Array.isArray(list)) return false
  for (const item of list) if (typeof item === 'string' && (item === '*' || item === value)) return true
  return false
}

function resourceMatches(resources: unknown, resource: string, subresource: string): boolean {
  if (!Array.isArray(resources)) return false
  for (const item of resources) {
    if (typeof item !== 'string') continue
    const slash = item.indexOf('/')
    const res = slash < 0 ? item : item.slice(0, slash)
    const sub = slash < 0 ? '' : item.slice(slash + 1)
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true
  }
  return false
}

function scopeMatches(scope: unknown, attributes: AdmissionAttributes): boolean {
  if (scope === undefined || scope === '*') return true
  // A namespace object is cluster-scoped though its requests carry its name as namespace.
  const isNamespace = attributes.resource.group === '' && attributes.resource.resource === 'namespaces'
  if (scope === 'Namespaced') return !isNamespace && attributes.namespace !== ''
  if (scope === 'Cluster') return isNamespace || attributes.namespace === ''
  return false
}

/** Whether `rule` matches the request, or the request as made to `resource` (an equivalent one). */
export function ruleMatches(rule: Obj, attributes: AdmissionAttributes, resource: AdmissionAttributes['resource'] = attributes.resource): boolean {
  return (
    scopeMatches(rule.scope, attributes) &&
    exact(rule.operations, attributes.operation) &&
    exact(rule.apiGroups, resource.group) &&
    exact(rule.apiVersions, resource.version) &&
    resourceMatches(rule.resources, resource.resource, attributes.subresource)
  )
}

/** The webhook's rules. */
export function rulesOf(webhook: Obj): Obj[] {
  const rules = Array.isArray(webhook.rules) ? webhook.rules : []
  return rules.filter((rule): rule is Obj => typeof rule === 'object' && rule !== null)
}

/** Whether any of the webhook's rules match the request. */
export function rulesMatch(webhook: Obj, attributes: AdmissionAttributes): boolean {
  return rulesOf(webhook).some((rule) => ruleMatches(rule, attributes))
}

/** The kinds the reference exempts (by kind, so any resource name or version of them). */
const EXEMPT = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'])

/** The admission configuration kinds themselves, which no webhook is called for. */
export function isExemptAdmissionConfigurationResource(attributes: AdmissionAttributes): boolean {
  return attributes.kind.group === 'admissionregistration.k8s.io' && EXEMPT.has(attributes.kind.kind)
}
