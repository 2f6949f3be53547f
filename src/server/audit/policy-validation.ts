/**
 * The checks of an audit Policy (the reference's apis/audit/validation ValidatePolicy): levels,
 * omitted stages, non-resource URLs (`/`-rooted, `*` only last), resource groups (DNS
 * subdomains), resourceNames only with resources, and no rule for both resources and
 * non-resource URLs. The errors are the reference's field errors.
 */
import { type ErrorList, invalid, notSupported, required } from '../api/validation/field/index.js'
import { isDNS1123Subdomain } from '../api/validation/strings.js'
import { LEVELS, STAGES } from './event.js'
import type { GroupResources, Policy, PolicyRule } from './policy.js'

export function validatePolicy(policy: Policy): ErrorList {
  const errors: ErrorList = validateOmitStages(policy.omitStages ?? [], 'omitStages')
  policy.rules.forEach((rule, i) => errors.push(...validatePolicyRule(rule, `rules[${i}]`)))
  return errors
}

function validatePolicyRule(rule: PolicyRule, path: string): ErrorList {
  const errors: ErrorList = [
    ...validateLevel(rule.level, `${path}.level`),
    ...validateNonResourceURLs(rule.nonResourceURLs ?? [], `${path}.nonResourceURLs`),
    ...validateResources(rule.resources ?? [], `${path}.resources`),
    ...validateOmitStages(rule.omitStages ?? [], `${path}.omitStages`),
  ]
  if ((rule.nonResourceURLs ?? []).length > 0 && ((rule.resources ?? []).length > 0 || (rule.namespaces ?? []).length > 0)) {
    errors.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'))
  }
  return errors
}

function validateLevel(level: string | undefined, path: string): ErrorList {
  if (level === undefined || level === '') return [required(path)]
  return (LEVELS as readonly string[]).includes(level) ? [] : [notSupported(path, level, LEVELS)]
}

function validateNonResourceURLs(urls: readonly string[], path: string): ErrorList {
  const errors: ErrorList = []
  urls.forEach((url, i) => {
    if (url === '*') return
    if (!url.startsWith('/')) errors.push(invalid(`${path}[${i}]`, url, "non-resource URL rules must begin with a '/' character"))
    if (url !== '' && url.slice(0, -1).includes('*')) errors.push(invalid(`${path}[${i}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"))
  })
  return errors
}

function validateResources(groupResources: readonly GroupResources[], path: string): ErrorList {
  const errors: ErrorList = []
  for (const gr of groupResources) {
    // The empty group is the core group.
    const group = gr.group ?? ''
    if (group !== '' && group !== '*') {
      const messages = isDNS1123Subdomain(group)
      if (messages.length > 0) errors.push(invalid(`${path}.group`, group, messages.join(',')))
    }
    if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
      errors.push(invalid(`${path}.resourceNames`, gr.resourceNames, 'using resourceNames requires at least one resource'))
    }
  }
  return errors
}

function validateOmitStages(stages: readonly string[], path: string): ErrorList {
  const errors: ErrorList = []
  stages.forEach((stage, i) => {
    if (!(STAGES as readonly string[]).includes(stage)) errors.push(invalid(`${path}[${i}]`, stage, `allowed stages are ${STAGES.join(',')}`))
  })
  return errors
}
