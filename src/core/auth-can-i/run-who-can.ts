/**
 * `auth who-can` without a server: kubectl-who-can's arguments and output, over the bindings
 * the server's RBAC authorizer finds granting the action (who-can.ts).
 */
import { RbacAuthorizer } from '../rbac/authorizer.js'
import type { PatchIO } from '../patch-command/types.js'
import { readPolicyInputs } from './inputs.js'
import { UsageError, WHO_CAN_OPTIONS, parseAuthCommandLine } from './options.js'
import { type OfflineAuthDeps, type RunResult, attributesOf, parseQuestion, policyOf, withCustomResources } from './question.js'
import { bindingsGranting, printWhoCan } from './who-can.js'

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
    const inputs = await readPolicyInputs(o.rbacFrom, io)
    const question = await parseQuestion(verb, target, withCustomResources(deps.discovery, inputs), (m) => unknown.push(m))
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
