/**
 * The ABAC mode (the reference's pkg/auth/authorizer/abac): a file of policies, one JSON
 * object a line, `abac.authorization.kubernetes.io/v1beta1` Policy or the unversioned v0
 * form. A request is allowed by the first policy whose subject, verb and resource (or path)
 * match; read-only policies allow only get, list and watch.
 */
import fs from 'node:fs'
import type { UserInfo } from '../http/types.js'
import type { Attributes, Authorizer, Decision, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver, Rules } from './authorizer.js'

export const ABAC_API_VERSION = 'abac.authorization.kubernetes.io/v1beta1'

export interface AbacPolicy {
  user: string
  group: string
  readonly: boolean
  apiGroup: string
  resource: string
  namespace: string
  nonResourcePath: string
}

export class AbacPolicyError extends Error {}

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch'])

function policyLoadError(path: string, line: number, data: string, cause: string): AbacPolicyError {
  return new AbacPolicyError(`error reading policy file ${path}, line ${line}: ${data}: ${cause}`)
}

const text = (v: unknown, field: string): string => {
  if (v === undefined || v === null) return ''
  if (typeof v !== 'string') throw new Error(`json: cannot unmarshal ${typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'array' : 'object'} into Go struct field PolicySpec.spec.${field} of type string`)
  return v
}

/** One line: the versioned form, or v0 (no apiVersion and kind) converted as the reference does. */
export function parsePolicyLine(raw: string): AbacPolicy {
  let obj: unknown
  try {
    obj = JSON.parse(raw)
  } catch (err) {
    throw new Error(`couldn't get version/kind; json parse error: ${(err as Error).message}`)
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error("couldn't get version/kind; json parse error: not an object")
  const o = obj as Record<string, unknown>
  const apiVersion = o.apiVersion
  const kind = o.kind
  if ((apiVersion === undefined || apiVersion === '') && (kind === undefined || kind === '')) {
    const user = text(o.user, 'user')
    const group = text(o.group, 'group')
    const namespace = text(o.namespace, 'namespace')
    const resource = text(o.resource, 'resource')
    const policy: AbacPolicy = { user, group, readonly: o.readonly === true, apiGroup: '*', resource: resource || '*', namespace: namespace || '*', nonResourcePath: '' }
    // v0: no subject means every authenticated user, and so does `*`.
    if ((!user && !group) || user === '*' || group === '*') {
      policy.group = 'system:authenticated'
      policy.user = ''
    }
    if (!namespace && !resource) policy.nonResourcePath = '*'
    return policy
  }
  if (kind === undefined || kind === '') throw new Error(`Object 'Kind' is missing in '${raw}'`)
  if (apiVersion !== ABAC_API_VERSION) {
    throw new Error(apiVersion === 'abac.authorization.kubernetes.io/v0' && kind === 'Policy' ? 'v0 policies carry no apiVersion or kind' : `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/apis/abac/v1beta1"`)
  }
  if (kind !== 'Policy') throw new Error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/apis/abac/v1beta1"`)
  const spec = (o.spec ?? {}) as Record<string, unknown>
  const policy: AbacPolicy = {
    user: text(spec.user, 'user'),
    group: text(spec.group, 'group'),
    readonly: spec.readonly === true,
    apiGroup: text(spec.apiGroup, 'apiGroup'),
    resource: text(spec.resource, 'resource'),
    namespace: text(spec.namespace, 'namespace'),
    nonResourcePath: text(spec.nonResourcePath, 'nonResourcePath'),
  }
  // v1beta1: a `*` subject matches unauthenticated users too.
  if (policy.user === '*' || policy.group === '*') {
    policy.group = '*'
    policy.user = ''
  }
  return policy
}

/** Reads the policy file; blank lines and lines starting with `#` are skipped. */
export function loadPolicyFile(path: string): AbacPolicy[] {
  let content: string
  try {
    content = fs.readFileSync(path, 'utf8')
  } catch (err) {
    throw new AbacPolicyError(`error reading policy file ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? `open ${path}: no such file or directory` : (err as Error).message}`)
  }
  const policies: AbacPolicy[] = []
  content.split('\n').forEach((line, i) => {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) return
    try {
      policies.push(parsePolicyLine(trimmed))
    } catch (err) {
      throw policyLoadError(path, i + 1, trimmed, (err as Error).message)
    }
  })
  return policies
}

export function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  let matched = false
  if (p.user) {
    if (p.user === '*') matched = true
    else if (p.user === user.name) matched = true
    else return false
  }
  if (p.group) {
    if (p.group === '*') matched = true
    else if (user.groups.includes(p.group)) matched = true
    else return false
  }
  return matched
}

function resourceMatches(p: AbacPolicy, a: Attributes): boolean {
  return a.resourceRequest && (p.namespace === '*' || p.namespace === a.namespace) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === a.apiGroup)
}

function nonResourceMatches(p: AbacPolicy, a: Attributes): boolean {
  if (a.resourceRequest) return false
  const path = p.nonResourcePath
  if (path === '*' || path === a.path) return true
  return path.endsWith('*') && a.path.startsWith(path.replace(/\*+$/, ''))
}

export function policyMatches(p: AbacPolicy, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false
  if (!READ_ONLY_VERBS.has(a.verb) && p.readonly) return false
  return resourceMatches(p, a) || nonResourceMatches(p, a)
}

export class AbacAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly policies: readonly AbacPolicy[]) {}

  static fromFile(path: string): AbacAuthorizer {
    return new AbacAuthorizer(loadPolicyFile(path))
  }

  authorize(a: Attributes): Decision {
    return this.policies.some((p) => policyMatches(p, a)) ? { decision: 'allow' } : { decision: 'noOpinion', reason: 'No policy matched.' }
  }

  rulesFor(user: UserInfo, namespace: string): Rules {
    const resourceRules: ResourceRuleInfo[] = []
    const nonResourceRules: NonResourceRuleInfo[] = []
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || !(p.namespace === '*' || p.namespace === namespace)) continue
      const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*']
      if (p.resource) resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource], resourceNames: [] })
      if (p.nonResourcePath) nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] })
    }
    return { resourceRules, nonResourceRules, incomplete: false, errors: [] }
  }
}
