/**
 * `auth can-i` without a server: kubectl's `auth can-i` (Complete, Validate, then
 * RunAccessCheck or RunAccessList), with the server's
 * SelfSubjectAccessReview and SelfSubjectRulesReview answered here by the server's own RBAC
 * authorizer (src/core/rbac/) over the policy read from files, for the user impersonation
 * would make of --as and --as-group.
 */
import { RbacAuthorizer } from '../rbac/authorizer.js'
import { requestForbiddenMessage } from '../rbac/forbidden-message.js'
import { impersonatedUser } from '../rbac/impersonated-user.js'
import type { RbacAttributes, RbacUser } from '../rbac/rules.js'
import type { PatchIO } from '../patch-command/types.js'
import { readPolicyInputs } from './inputs.js'
import { printRules } from './list.js'
import { type AuthCommandOptions, CAN_I_OPTIONS, UsageError, parseAuthCommandLine } from './options.js'
import { type OfflineAuthDeps, type Question, type RunResult, attributesOf, parseQuestion, policyOf, withCustomResources } from './question.js'


/** kubectl's resourceVerbs and nonResourceURLVerbs (cani.go): others are warned about. */
const RESOURCE_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'use', 'bind', 'impersonate', '*', 'approve', 'sign', 'escalate', 'attest'])
const NON_RESOURCE_URL_VERBS = new Set(['get', 'put', 'post', 'head', 'options', 'delete', 'patch', '*'])

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
    if (!o.list) question = await parseQuestion(o.args[0]!, o.args[1]!, withCustomResources(deps.discovery, inputs), warn)
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
