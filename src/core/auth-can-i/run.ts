/**
 * `auth can-i` and `auth who-can` without a server: kubectl's `auth can-i` (Complete,
 * Validate, then RunAccessCheck or RunAccessList) and kubectl-who-can, with the server's
 * SelfSubjectAccessReview and SelfSubjectRulesReview answered here by the server's own RBAC
 * authorizer (src/core/rbac/) over the policy read from files, for the user impersonation
 * would make of --as and --as-group.
 */
import { RbacAuthorizer } from '../rbac/authorizer.js'
import { requestForbiddenMessage } from '../rbac/forbidden-message.js'
import { impersonatedUser } from '../rbac/impersonated-user.js'
import type { PolicyObjects, RbacObject } from '../rbac/policy.js'
import type { RbacAttributes, RbacUser } from '../rbac/rules.js'
import type { PatchIO } from '../patch-command/types.js'
import { type PolicyInputs, readPolicyInputs } from './inputs.js'
import { printRules } from './list.js'
import { type AuthCommandOptions, CAN_I_OPTIONS, UsageError, WHO_CAN_OPTIONS, parseAuthCommandLine } from './options.js'
import { offlinePolicy } from './policy.js'
import { type Discovery, resolveResource } from './resources.js'
import { bindingsGranting, printWhoCan } from './who-can.js'

/** What the offline commands take from the server: its discovery and its default policy. */
export interface OfflineAuthDeps {
  discovery: Discovery
  defaultPolicy: () => readonly RbacObject[]
}

export interface RunResult {
  exitCode: number
  help?: boolean
}

/** kubectl's resourceVerbs and nonResourceURLVerbs (cani.go): others are warned about. */
const RESOURCE_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'use', 'bind', 'impersonate', '*', 'approve', 'sign', 'escalate', 'attest'])
const NON_RESOURCE_URL_VERBS = new Set(['get', 'put', 'post', 'head', 'options', 'delete', 'patch', '*'])

/** The question: `VERB TYPE[/NAME]` or `VERB /URL` resolved to the attributes of the review. */
interface Question {
  verb: string
  nonResourceURL: string
  group: string
  resource: string
  resourceName: string
  namespaced: boolean | undefined
}

async function parseQuestion(args: readonly string[], discovery: Discovery, warn: (m: string) => void, usage: string): Promise<Question> {
  if (args.length !== 2) throw new UsageError(usage)
  const [verb, target] = args as [string, string]
  if (target.startsWith('/')) return { verb, nonResourceURL: target, group: '', resource: '', resourceName: '', namespaced: undefined }
  const slash = target.indexOf('/')
  const type = slash === -1 ? target : target.slice(0, slash)
  const resolved = await resolveResource(discovery, type, warn)
  return { verb, nonResourceURL: '', group: resolved.group, resource: resolved.resource, resourceName: slash === -1 ? '' : target.slice(slash + 1), namespaced: resolved.known?.namespaced }
}

function attributesOf(q: Question, user: RbacUser, namespace: string, subresource: string): RbacAttributes {
  if (q.nonResourceURL) return { user, verb: q.verb, resourceRequest: false, path: q.nonResourceURL, namespace: '', apiGroup: '', resource: '', subresource: '', name: '' }
  return { user, verb: q.verb, resourceRequest: true, path: '', namespace, apiGroup: q.group, resource: q.resource, subresource, name: q.resourceName }
}

/** The user of the SelfSubjectAccessReview kubectl would send with --as and --as-group. */
function userOf(o: AuthCommandOptions): RbacUser {
  if (!o.as) {
    throw new UsageError(
      o.asGroups.length > 0
        ? 'requested impersonation of groups without impersonating a user: give --as'
        : '--as is required: name the user (or system:serviceaccount:<namespace>:<name>) whose access to check',
    )
  }
  return impersonatedUser(o.as, o.asGroups)
}

/**
 * kubectl asks as the impersonated user, who must be allowed to create the review (the default
 * policy lets every authenticated user, not an anonymous one): the error kubectl prints when not.
 */
function reviewRefusal(authorizer: RbacAuthorizer, user: RbacUser, resource: string): string | undefined {
  const attributes: RbacAttributes = { user, verb: 'create', resourceRequest: true, path: '', namespace: '', apiGroup: 'authorization.k8s.io', resource, subresource: '', name: '' }
  const { decision, reason } = authorizer.authorize(attributes)
  return decision === 'allow' ? undefined : `Error from server (Forbidden): ${requestForbiddenMessage(attributes, reason)}\n`
}

/** The discovery with the custom resources of the inputs after the built-in ones, as discovery orders their groups. */
function withCustomResources(discovery: Discovery, inputs: PolicyInputs): Discovery {
  if (inputs.customResources.length === 0) return discovery
  const all = discovery.all
  return {
    resources: [...discovery.resources, ...inputs.customResources],
    ...(all ? { all: async () => [...(await all()), ...inputs.customResources] } : {}),
  }
}

function policyOf(o: AuthCommandOptions, inputs: PolicyInputs, deps: OfflineAuthDeps): PolicyObjects {
  return offlinePolicy(o.defaultPolicy ? deps.defaultPolicy() : [], inputs.rbac)
}

/** Runs `auth can-i` with `argv` (the arguments after `auth can-i`). */
export async function runCanI(argv: readonly string[], program: string, io: PatchIO, deps: OfflineAuthDeps): Promise<RunResult> {
  const command = `${program} auth can-i`
  // kubectl's messages end with a newline, to which its warning printer adds one.
  const warn = (m: string) => io.err(`Warning: ${m}\n\n`)
  try {
    const parsed = parseAuthCommandLine(argv, CAN_I_OPTIONS, command)
    if (parsed.kind === 'help') return { exitCode: 0, help: true }
    const o = parsed.options
    // Complete.
    let question: Question | undefined
    if (o.list) {
      if (o.args.length !== 0) throw new UsageError('list option must be specified with no arguments')
    } else if (o.args.length !== 2) {
      throw new UsageError(`you must specify two arguments: verb resource or verb resource/resourceName.\nSee '${command} -h' for help and examples.`)
    }
    const inputs = await readPolicyInputs(o.rbacFrom, io)
    if (!o.list) question = await parseQuestion(o.args, withCustomResources(deps.discovery, inputs), warn, '')
    const namespace = o.allNamespaces ? '' : (o.namespace ?? 'default')
    // Validate.
    if (o.list) {
      if (o.quiet || o.allNamespaces || o.subresource !== '') throw new UsageError("list option can't be specified with neither quiet, all-namespaces nor subresource options")
    } else if (question!.nonResourceURL) {
      if (o.subresource !== '') throw new UsageError('--subresource can not be used with NonResourceURL')
      if (!NON_RESOURCE_URL_VERBS.has(question!.verb)) warn(`verb '${question!.verb}' is not a known verb`)
    } else if (question!.resource !== '' && !o.allNamespaces) {
      if (question!.namespaced === false) {
        warn(question!.group === '' ? `resource '${question!.resource}' is not namespace scoped` : `resource '${question!.resource}' is not namespace scoped in group '${question!.group}'`)
      }
      if (!RESOURCE_VERBS.has(question!.verb)) warn(`verb '${question!.verb}' is not a known verb`)
    }
    if (!o.list && o.noHeaders) throw new UsageError('--no-headers cannot be set without --list specified')
    const user = userOf(o)
    const authorizer = new RbacAuthorizer(policyOf(o, inputs, deps))
    const refused = reviewRefusal(authorizer, user, o.list ? 'selfsubjectrulesreviews' : 'selfsubjectaccessreviews')
    if (refused) {
      io.err(refused)
      return { exitCode: 1 }
    }
    if (o.list) {
      io.out(printRules(authorizer.rulesFor(user, namespace), o.noHeaders))
      return { exitCode: 0 }
    }
    const { decision, reason } = authorizer.authorize(attributesOf(question!, user, namespace, o.subresource))
    const allowed = decision === 'allow'
    if (!o.quiet) {
      // kubectl prints the reason after a "no" only; --explain prints it on a line of its own.
      let text = allowed ? 'yes\n' : `no${reason && !o.explain ? ` - ${reason}` : ''}\n`
      if (o.explain && reason) text += `${reason}\n`
      io.out(text)
    }
    return { exitCode: allowed ? 0 : 1 }
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n`)
    return { exitCode: 1 }
  }
}

/** Runs `auth who-can` with `argv` (the arguments after `auth who-can`). */
export async function runWhoCan(argv: readonly string[], program: string, io: PatchIO, deps: OfflineAuthDeps): Promise<RunResult> {
  const command = `${program} auth who-can`
  try {
    const parsed = parseAuthCommandLine(argv, WHO_CAN_OPTIONS, command)
    if (parsed.kind === 'help') return { exitCode: 0, help: true }
    const o = parsed.options
    if (o.args.length < 2) throw new UsageError('you must specify two or three arguments: verb, resource, and optional resourceName')
    const unknown: string[] = []
    const [verb, target] = o.args as [string, string]
    const slash = target.startsWith('/') ? -1 : target.indexOf('/')
    const inputs = await readPolicyInputs(o.rbacFrom, io)
    const question = await parseQuestion([verb, slash === -1 ? target : target.slice(0, slash)], withCustomResources(deps.discovery, inputs), (m) => unknown.push(m), '')
    if (slash !== -1) question.resourceName = target.slice(slash + 1)
    if (unknown.length > 0) throw new UsageError(`resolving resource: ${unknown[0]}`)
    if (question.nonResourceURL && o.subresource !== '') throw new UsageError('--subresource cannot be used with NONRESOURCEURL')
    const namespace = o.allNamespaces ? '' : (o.namespace ?? 'default')
    const resource = question.group ? `${question.resource}.${question.group}` : question.resource
    const action = question.nonResourceURL ? `${verb} ${question.nonResourceURL}` : `${verb} ${resource}${question.resourceName ? `/${question.resourceName}` : ''}`
    const policy = policyOf(o, inputs, deps)
    const attributes = attributesOf(question, { name: '', groups: [] }, namespace, o.subresource)
    const q = { attributes, allNamespaces: o.allNamespaces, action }
    io.out(printWhoCan(q, bindingsGranting(policy, new RbacAuthorizer(policy), q)))
    return { exitCode: 0 }
  } catch (err) {
    io.err(`Error: ${(err as Error).message}\n`)
    return { exitCode: 1 }
  }
}
