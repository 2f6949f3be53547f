/**
 * The OwnerReferencesPermissionEnforcement admission plugin (the reference's
 * `plugin/pkg/admission/gc`): changing an object's ownerReferences on update needs the right
 * to delete the object, and setting blockOwnerDeletion on a reference (new, or newly true)
 * needs the right to update the owner's `finalizers` subresource (or every resource's), since
 * it holds the owner's deletion back. Creating with owner references needs only the latter.
 * Pods' status is exempt. Default off.
 */
import { isDeepStrictEqual } from 'node:util'
import { KINDS } from '../api/kinds/index.js'
import type { KubeObject } from '../api/registry/object.js'
import { isPlainObject } from '../api/registry/object.js'
import type { ApiError } from '../api/status-errors.js'
import { errors } from '../api/status-errors.js'
import type { Attributes, Decision } from '../authorization/authorizer.js'
import type { UserInfo } from '../http/types.js'
import { type AdmissionAttributes, CREATE, UPDATE, nameForRefusal } from './attributes.js'
import { type ValidationInterface, handlesOnly } from './interfaces.js'
import type { PluginInitialization } from './plugins.js'

export const OWNER_REFERENCES_PERMISSION_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement'

type OwnerReference = Record<string, unknown>

/** What a kind maps to (a RESTMapping). */
interface Mapping {
  group: string
  version: string
  resource: string
  namespaced: boolean
}

export class OwnerReferencesPermissionEnforcement implements ValidationInterface {
  constructor(private readonly init: PluginInitialization) {}

  readonly handles = handlesOnly(CREATE, UPDATE)

  async validate(a: AdmissionAttributes): Promise<void> {
    // The reference's white list: pods/status.
    if (a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === 'status') return
    if (!a.object || !isChangingOwnerReference(a.object, a.oldObject)) return
    const authorizer = this.init.authorizer
    // A write without a requester is the server's own; with no authorizer there is nothing to ask.
    if (!a.userInfo || !authorizer) return
    const user = a.userInfo
    // Who creates a thing could always have set its owners; an update needs delete on it.
    if (a.operation !== CREATE) {
      const decision = await ask(authorizer.authorize.bind(authorizer), resourceAttributes(user, 'delete', a.namespace, a.resource, a.subresource, a.name))
      if (decision.decision !== 'allow') throw forbidden(a, `cannot set an ownerRef on a resource you can't delete: ${decision.reason ?? ''}, ${decision.error ?? '<nil>'}`)
    }
    const blocking = newBlockingOwnerDeletionRefs(a.object, a.oldObject)
    if (blocking.length === 0) return
    // One question first: may the user finalize anything at all?
    const anything = await ask(authorizer.authorize.bind(authorizer), resourceAttributes(user, 'update', '*', { group: '*', version: '*', resource: '*' }, 'finalizers', '*'))
    if (anything.decision === 'allow') return
    for (const ref of blocking) {
      const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : ''
      const kind = typeof ref.kind === 'string' ? ref.kind : ''
      let mappings: Mapping[]
      try {
        mappings = await this.restMappings(apiVersion, kind)
      } catch (err) {
        throw forbidden(a, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: ${(err as Error).message}`)
      }
      // A kind of several resources needs the right on each.
      for (const m of mappings) {
        const decision = await ask(authorizer.authorize.bind(authorizer), resourceAttributes(user, 'update', m.namespaced ? a.namespace : '', m, 'finalizers', typeof ref.name === 'string' ? ref.name : ''))
        if (decision.decision !== 'allow') {
          throw forbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${decision.reason ?? ''}, ${decision.error ?? '<nil>'}`)
        }
      }
    }
  }

  /**
   * The resources a kind maps to at the reference's version (RESTMappings): the built-in kinds
   * and the custom resources of the stored CRDs; none is the reference's NoKindMatchError.
   */
  private async restMappings(apiVersion: string, kind: string): Promise<Mapping[]> {
    const slash = apiVersion.indexOf('/')
    if (apiVersion.split('/').length > 2) throw new Error(`unexpected GroupVersion string: ${apiVersion}`)
    const group = slash < 0 ? '' : apiVersion.slice(0, slash)
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1)
    const found: Mapping[] = KINDS.filter((k) => k.group === group && k.kind === kind && (version === '' || k.version === version)).map((k) => ({ group: k.group, version: k.version, resource: k.resource, namespaced: k.namespaced }))
    const crds = await this.init.stores()?.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')?.list()
    for (const crd of crds?.items ?? []) found.push(...crdMappings(crd, group, version, kind))
    const unique = found.filter((m, i) => found.findIndex((n) => isDeepStrictEqual(n, m)) === i)
    if (unique.length > 0) return unique
    if (version === '') throw new Error(`no matches for kind ${JSON.stringify(kind)} in group ${JSON.stringify(group)}`)
    throw new Error(`no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(apiVersion)}`)
  }
}

function crdMappings(crd: KubeObject, group: string, version: string, kind: string): Mapping[] {
  const spec = isPlainObject(crd.spec) ? crd.spec : {}
  const names = isPlainObject(spec.names) ? spec.names : {}
  if (spec.group !== group || names.kind !== kind || typeof names.plural !== 'string') return []
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isPlainObject) : []
  return versions
    .filter((v) => v.served === true && typeof v.name === 'string' && (version === '' || v.name === version))
    .map((v) => ({ group, version: v.name as string, resource: names.plural as string, namespaced: spec.scope === 'Namespaced' }))
}

function resourceAttributes(user: UserInfo, verb: string, namespace: string, r: { group: string; version: string; resource: string }, subresource: string, name: string): Attributes {
  return { user, verb, resourceRequest: true, path: '', namespace, apiGroup: r.group, apiVersion: r.version, resource: r.resource, subresource, name }
}

/** An authorizer's answer; an authorizer that throws is not an allow. */
async function ask(authorize: (attributes: Attributes) => Decision | Promise<Decision>, attributes: Attributes): Promise<Decision> {
  try {
    return await authorize(attributes)
  } catch (err) {
    return { decision: 'noOpinion', error: (err as Error).message }
  }
}

function ownerReferencesOf(obj: KubeObject | undefined): OwnerReference[] {
  const refs = obj?.metadata.ownerReferences
  return Array.isArray(refs) ? refs.filter(isPlainObject) : []
}

/** Whether the owner references differ from the stored ones (on create: whether there are any). */
function isChangingOwnerReference(obj: KubeObject, old: KubeObject | undefined): boolean {
  const owners = ownerReferencesOf(obj)
  if (!old) return owners.length > 0
  const oldOwners = ownerReferencesOf(old)
  return owners.length !== oldOwners.length || owners.some((ref, i) => !isDeepStrictEqual(ref, oldOwners[i]))
}

/** The blocking references that are new, or that did not block before (matched by uid). */
function newBlockingOwnerDeletionRefs(obj: KubeObject, old: KubeObject | undefined): OwnerReference[] {
  const blocking = ownerReferencesOf(obj).filter((ref) => ref.blockOwnerDeletion === true)
  if (blocking.length === 0 || !old) return blocking
  const oldByUid = new Map(ownerReferencesOf(old).map((ref) => [ref.uid, ref]))
  return blocking.filter((ref) => oldByUid.get(ref.uid)?.blockOwnerDeletion !== true)
}

function forbidden(a: AdmissionAttributes, why: string): ApiError {
  return errors.forbidden({ group: a.resource.group, resource: a.resource.resource }, nameForRefusal(a), why)
}
