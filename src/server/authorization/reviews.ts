/**
 * The authorization.k8s.io/v1 review API (the reference's pkg/registry/authorization): a
 * SubjectAccessReview asks the authorizer about any user, a LocalSubjectAccessReview about one
 * namespace, a SelfSubjectAccessReview about the requester, and a SelfSubjectRulesReview lists
 * the requester's rules in a namespace. Each create answers 201 with the status filled in and
 * stores nothing; `kubectl auth can-i` is built on them.
 */
import type { UserInfo } from '../http/types.js'
import type { VirtualHandler } from '../api/index.js'
import { decodeRequestBody, negotiateOutput, readBody, writeObject } from '../api/negotiation.js'
import { isPlainObject, type KubeObject } from '../api/registry/object.js'
import { type Cause, errors } from '../api/status-errors.js'
import type { Attributes, Authorizer, RuleResolver } from './authorizer.js'
import { aggregate } from './union.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined)
const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [])

export interface ReviewDeps {
  authorizer: Authorizer
  ruleResolver: RuleResolver
}

/** Go's %#v-free rendering of a value in an Invalid cause (the reference prints the struct). */
function invalid(field: string, value: unknown, detail: string): Cause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${value === undefined || value === null ? 'null' : JSON.stringify(value)}: ${detail}`, field }
}

function specAttributes(user: UserInfo, spec: Obj): Attributes {
  const resource = obj(spec.resourceAttributes)
  if (resource) {
    return {
      user,
      verb: str(resource.verb),
      resourceRequest: true,
      path: '',
      namespace: str(resource.namespace),
      apiGroup: str(resource.group),
      apiVersion: str(resource.version),
      resource: str(resource.resource),
      subresource: str(resource.subresource),
      name: str(resource.name),
    }
  }
  const nonResource = obj(spec.nonResourceAttributes) ?? {}
  return { user, verb: str(nonResource.verb), resourceRequest: false, path: str(nonResource.path), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' }
}

/** Exactly one of resourceAttributes and nonResourceAttributes. */
function attributeCauses(spec: Obj): Cause[] {
  const causes: Cause[] = []
  if (spec.resourceAttributes && spec.nonResourceAttributes) causes.push(invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'))
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) causes.push(invalid('spec.resourceAttributes', spec.nonResourceAttributes, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'))
  return causes
}

function subjectUser(spec: Obj): UserInfo {
  const extra = obj(spec.extra)
  return {
    name: str(spec.user),
    groups: strings(spec.groups),
    ...(str(spec.uid) ? { uid: str(spec.uid) } : {}),
    ...(extra ? { extra: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v)])) } : {}),
  }
}

async function accessStatus(deps: ReviewDeps, attributes: Attributes): Promise<Obj> {
  const { decision, reason, error } = await deps.authorizer.authorize(attributes)
  return {
    allowed: decision === 'allow',
    ...(decision === 'deny' ? { denied: true } : {}),
    ...(reason ? { reason } : {}),
    ...(error ? { evaluationError: error } : {}),
  }
}

/**
 * Answers the create of `resource` (one of the four kinds) by `requester`; `namespace` is the
 * URL's (LocalSubjectAccessReview). Returns the object to answer with.
 */
export async function review(deps: ReviewDeps, resource: string, body: KubeObject, requester: UserInfo, namespace: string | undefined): Promise<KubeObject> {
  const spec = obj(body.spec) ?? {}
  const answer = (status: Obj, withSpec = true): KubeObject => ({
    kind: body.kind,
    apiVersion: body.apiVersion,
    // Go encodes the empty creation time of an object never stored as null.
    metadata: { ...body.metadata, creationTimestamp: null as unknown as string },
    ...(withSpec ? { spec } : { spec: {} }),
    status,
  })
  switch (resource) {
    case 'subjectaccessreviews': {
      const causes = attributeCauses(spec)
      if (!spec.user && strings(spec.groups).length === 0) causes.push(invalid('spec.user', str(spec.user), 'at least one of user or group must be specified'))
      if (causes.length) throw errors.invalid('authorization.k8s.io', 'SubjectAccessReview', '', causes)
      return answer(await accessStatus(deps, specAttributes(subjectUser(spec), spec)))
    }
    case 'localsubjectaccessreviews': {
      if (!namespace) throw errors.badRequest(`namespace is required on this type: ${namespace ?? ''}`)
      const causes = attributeCauses(spec)
      if (!spec.user && strings(spec.groups).length === 0) causes.push(invalid('spec.user', str(spec.user), 'at least one of user or group must be specified'))
      const resourceAttributes = obj(spec.resourceAttributes)
      if (resourceAttributes && str(resourceAttributes.namespace) !== (body.metadata.namespace ?? '')) {
        causes.push(invalid('spec.resourceAttributes.namespace', str(resourceAttributes.namespace), 'must match metadata.namespace'))
      }
      if (spec.nonResourceAttributes) causes.push(invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'))
      if (causes.length) throw errors.invalid('authorization.k8s.io', 'LocalSubjectAccessReview', '', causes)
      if (namespace !== body.metadata.namespace) throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`)
      return answer(await accessStatus(deps, specAttributes(subjectUser(spec), spec)))
    }
    case 'selfsubjectaccessreviews': {
      const causes = attributeCauses(spec)
      if (causes.length) throw errors.invalid('authorization.k8s.io', 'SelfSubjectAccessReview', '', causes)
      return answer(await accessStatus(deps, specAttributes(requester, spec)))
    }
    case 'selfsubjectrulesreviews': {
      const ns = str(spec.namespace)
      if (!ns) throw errors.badRequest('no namespace on request')
      const rules = await deps.ruleResolver.rulesFor(requester, ns)
      const status: Obj = {
        resourceRules: rules.resourceRules.map((r) => ({
          verbs: r.verbs,
          ...(r.apiGroups.length ? { apiGroups: r.apiGroups } : {}),
          ...(r.resources.length ? { resources: r.resources } : {}),
          ...(r.resourceNames.length ? { resourceNames: r.resourceNames } : {}),
        })),
        nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: r.verbs, ...(r.nonResourceURLs.length ? { nonResourceURLs: r.nonResourceURLs } : {}) })),
        incomplete: rules.incomplete,
        ...(rules.errors.length ? { evaluationError: aggregate(rules.errors) } : {}),
      }
      return answer(status, false)
    }
    default:
      throw errors.methodNotAllowed()
  }
}

const GROUP_VERSION = 'authorization.k8s.io/v1'
const KINDS: Record<string, string> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
}

/** The body of a review: its kind and version must be this endpoint's; a namespaced one takes the URL's namespace. */
async function readReview(req: Parameters<VirtualHandler>[0]['req'], kind: string, namespace: string | undefined): Promise<KubeObject> {
  const body = await decodeRequestBody(req, await readBody(req), { kind })
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  if ((body.kind !== undefined && body.kind !== kind) || (body.apiVersion !== undefined && body.apiVersion !== GROUP_VERSION)) {
    throw errors.badRequest(`${String(body.kind ?? '')} in version ${JSON.stringify(String(body.apiVersion ?? '').split('/').pop())} cannot be handled as a ${kind}: no kind "${String(body.kind ?? '')}" is registered for version "${String(body.apiVersion ?? '')}"`)
  }
  const metadata = isPlainObject(body.metadata) ? { ...body.metadata } : {}
  if (namespace !== undefined) {
    if (metadata.namespace && metadata.namespace !== namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
    metadata.namespace = namespace
  }
  return { ...body, kind, apiVersion: GROUP_VERSION, metadata } as KubeObject
}

/** The handlers of the four reviews, by `group/version/resource`. */
export function authorizationApi(deps: ReviewDeps): Map<string, VirtualHandler> {
  return new Map(
    Object.entries(KINDS).map(([resource, kind]): [string, VirtualHandler] => [
      `${GROUP_VERSION}/${resource}`,
      async ({ req, res, ctx, namespace }) => {
        const body = await readReview(req, kind, namespace)
        const answer = await review(deps, resource, body, ctx.user!, namespace)
        await writeObject(res, 201, answer, negotiateOutput(req.headers.accept, { table: false }))
      },
    ]),
  )
}
