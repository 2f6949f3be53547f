/**
 * What `auth can-i` and `auth who-can` share: what they take from the server, the question of
 * `VERB TYPE[/NAME]` or `VERB /URL` as kubectl's Complete reads it, and the policy and
 * discovery of the inputs.
 */
import type { PolicyObjects, RbacObject } from '../rbac/policy.js'
import type { RbacAttributes, RbacUser } from '../rbac/rules.js'
import type { PolicyInputs } from './inputs.js'
import type { AuthCommandOptions } from './options.js'
import { offlinePolicy } from './policy.js'
import { type Discovery, resolveResource } from './resources.js'

/** What the offline commands take from the server: its discovery and its default policy. */
export interface OfflineAuthDeps {
  discovery: Discovery
  defaultPolicy: () => readonly RbacObject[]
}

export interface RunResult {
  exitCode: number
  help?: boolean
}

/** The question: `VERB TYPE[/NAME]` or `VERB /URL` resolved to the attributes of the review. */
export interface Question {
  verb: string
  nonResourceURL: string
  group: string
  resource: string
  resourceName: string
  namespaced: boolean | undefined
}

/** kubectl's Complete: TARGET starting with `/` is a path, else TYPE or TYPE/NAME. */
export async function parseQuestion(verb: string, target: string, discovery: Discovery, warn: (m: string) => void): Promise<Question> {
  if (target.startsWith('/')) return { verb, nonResourceURL: target, group: '', resource: '', resourceName: '', namespaced: undefined }
  const slash = target.indexOf('/')
  const type = slash === -1 ? target : target.slice(0, slash)
  const resolved = await resolveResource(discovery, type, warn)
  return { verb, nonResourceURL: '', group: resolved.group, resource: resolved.resource, resourceName: slash === -1 ? '' : target.slice(slash + 1), namespaced: resolved.known?.namespaced }
}

export function attributesOf(q: Question, user: RbacUser, namespace: string, subresource: string): RbacAttributes {
  if (q.nonResourceURL) return { user, verb: q.verb, resourceRequest: false, path: q.nonResourceURL, namespace: '', apiGroup: '', resource: '', subresource: '', name: '' }
  return { user, verb: q.verb, resourceRequest: true, path: '', namespace, apiGroup: q.group, resource: q.resource, subresource, name: q.resourceName }
}

/** The discovery with the custom resources of the inputs after the built-in ones, as discovery orders their groups. */
export function withCustomResources(discovery: Discovery, inputs: PolicyInputs): Discovery {
  if (inputs.customResources.length === 0) return discovery
  const all = discovery.all
  return {
    resources: [...discovery.resources, ...inputs.customResources],
    ...(all ? { all: async () => [...(await all()), ...inputs.customResources] } : {}),
  }
}

export function policyOf(o: AuthCommandOptions, inputs: PolicyInputs, deps: OfflineAuthDeps): PolicyObjects {
  return offlinePolicy(o.defaultPolicy ? deps.defaultPolicy() : [], inputs.rbac)
}
