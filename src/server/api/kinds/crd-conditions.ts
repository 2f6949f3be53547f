/**
 * The status a CustomResourceDefinition's controllers keep, as pure functions of the CRD and
 * the other CRDs of its group: the naming controller (accepted names, NamesAccepted), the
 * establishing controller (Established), the API approval controller
 * (KubernetesAPIApprovalPolicyConformant) and the non-structural schema controller
 * (NonStructuralSchema). The reference's files are
 * staging/src/k8s.io/apiextensions-apiserver/pkg/controller/{status,establish,apiapproval,nonstructuralschema}.
 *
 * The reference runs them as separate controllers after the write; here they run in the
 * registry's write of the CRD itself (and again for the group's other CRDs when one is deleted),
 * so a CRD is Established in the response to its create: the reference reaches the same state
 * within milliseconds on one server, and clients wait for it the same way (`kubectl wait
 * --for condition=established`).
 */
import { isPlainObject, nowTimestamp } from '../registry/object.js'
import type { KubeObject } from '../registry/object.js'

type Obj = Record<string, unknown>

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io'
export const KUBE_API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io'

export interface CRDCondition {
  type: string
  status: 'True' | 'False' | 'Unknown'
  reason?: string
  message?: string
  lastTransitionTime?: string
}

export function conditionsOf(crd: KubeObject): CRDCondition[] {
  return arr(obj(crd.status).conditions).filter(isPlainObject) as unknown as CRDCondition[]
}

export function findCondition(crd: KubeObject, type: string): CRDCondition | undefined {
  return conditionsOf(crd).find((c) => c.type === type)
}

export function isConditionTrue(crd: KubeObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True'
}

/** The reference's SetCRDCondition: replaces or appends; the transition time moves only when the status changes. */
export function setCondition(crd: KubeObject, next: CRDCondition): void {
  const status = obj(crd.status)
  crd.status = status
  const conditions = conditionsOf(crd)
  status.conditions = conditions
  const now = nowTimestamp()
  const existing = conditions.find((c) => c.type === next.type)
  if (!existing) {
    conditions.push({ type: next.type, status: next.status, lastTransitionTime: now, ...(next.reason ? { reason: next.reason } : {}), ...(next.message ? { message: next.message } : {}) })
    return
  }
  if (existing.status !== next.status || !existing.lastTransitionTime) existing.lastTransitionTime = now
  existing.status = next.status
  if (next.reason) existing.reason = next.reason
  else delete existing.reason
  if (next.message) existing.message = next.message
  else delete existing.message
}

export function removeCondition(crd: KubeObject, type: string): void {
  const status = obj(crd.status)
  crd.status = status
  status.conditions = conditionsOf(crd).filter((c) => c.type !== type)
}

/** The names already claimed in the group by the other CRDs' accepted names. */
function claimedNames(group: string, others: readonly KubeObject[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>()
  const kinds = new Set<string>()
  for (const other of others) {
    if (str(obj(other.spec).group) !== group) continue
    const accepted = obj(obj(other.status).acceptedNames)
    for (const n of [accepted.plural, accepted.singular, ...arr(accepted.shortNames)]) resources.add(str(n))
    kinds.add(str(accepted.kind))
    kinds.add(str(accepted.listKind))
  }
  return { resources, kinds }
}

/** The reference's equalToAcceptedOrFresh: the message of a conflict, or undefined. */
function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined
  return `${JSON.stringify(requested)} is already in use`
}

function sameStrings(a: unknown, b: unknown): boolean {
  const x = arr(a)
  const y = arr(b)
  return x.length === y.length && x.every((v, i) => v === y[i])
}

/**
 * The naming controller's sync: when spec.names differ from status.acceptedNames, accepts
 * every requested name that no other CRD of the group holds, and sets NamesAccepted (and
 * Established False `Installing` / `NotAccepted` until established).
 */
export function reconcileNames(crd: KubeObject, others: readonly KubeObject[]): void {
  const spec = obj(crd.spec)
  const requested = obj(spec.names)
  const status = obj(crd.status)
  crd.status = status
  const accepted = obj(status.acceptedNames)
  if (namesEqual(requested, accepted) && findCondition(crd, 'NamesAccepted')) return
  const { resources, kinds } = claimedNames(str(spec.group), others.filter((o) => o.metadata.name !== crd.metadata.name))
  const names: Obj = structuredClone(accepted)
  let failure: { reason: string; message: string } | undefined
  const check = (field: string, used: Set<string>, reason: string) => {
    const message = conflict(str(requested[field]), str(accepted[field]), used)
    if (message) failure = { reason, message }
    else if (requested[field] !== undefined) names[field] = requested[field]
  }
  check('plural', resources, 'PluralConflict')
  check('singular', resources, 'SingularConflict')
  if (!sameStrings(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(arr(accepted.shortNames).map(str))
    const messages = arr(requested.shortNames)
      .map(str)
      .filter((s) => !mine.has(s) && s !== str(accepted.plural) && s !== str(accepted.singular))
      .map((s) => conflict(s, '', resources))
      .filter((m): m is string => m !== undefined)
    if (messages.length > 0) failure = { reason: 'ShortNamesConflict', message: messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]` }
    else if (requested.shortNames !== undefined) names.shortNames = structuredClone(requested.shortNames)
    else delete names.shortNames
  }
  check('kind', kinds, 'KindConflict')
  check('listKind', kinds, 'ListKindConflict')
  if (requested.categories !== undefined) names.categories = structuredClone(requested.categories)
  else delete names.categories
  const namesAccepted: CRDCondition = failure
    ? { type: 'NamesAccepted', status: 'False', ...failure }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
  let established: CRDCondition = findCondition(crd, 'Established') ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' }
  }
  status.acceptedNames = names
  setCondition(crd, namesAccepted)
  setCondition(crd, { ...established })
}

function namesEqual(a: Obj, b: Obj): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  return [...keys].every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]))
}

/** The establishing controller: a CRD whose names are accepted is established. */
export function establish(crd: KubeObject): void {
  if (!isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) return
  setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' })
}

/** The reference's IsProtectedCommunityGroup. */
export function isProtectedCommunityGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io')
}

/** Go's url.ParseRequestURI with a scheme and a host: an absolute URL. */
function isAbsoluteURL(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) return false
  try {
    return new URL(value).host !== ''
  } catch {
    return false
  }
}

/** The API approval controller's condition for a CRD of a protected group (undefined for others). */
export function apiApprovalCondition(crd: KubeObject): CRDCondition | undefined {
  if (!isProtectedCommunityGroup(str(obj(crd.spec).group))) return undefined
  const annotation = str(obj(crd.metadata.annotations)[KUBE_API_APPROVED_ANNOTATION])
  const type = 'KubernetesAPIApprovalPolicyConformant'
  if (annotation === '') {
    return { type, status: 'False', reason: 'MissingAnnotation', message: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111` }
  }
  if (annotation.startsWith('unapproved')) return { type, status: 'False', reason: 'UnapprovedAnnotation', message: `not approved: ${JSON.stringify(annotation)}` }
  if (isAbsoluteURL(annotation)) return { type, status: 'True', reason: 'ApprovedAnnotation', message: `approved in ${annotation}` }
  return {
    type,
    status: 'False',
    reason: 'InvalidAnnotation',
    message: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  }
}

/** Sets (or keeps) the approval condition; a CRD of another group has none. */
export function reconcileApproval(crd: KubeObject): void {
  const next = apiApprovalCondition(crd)
  if (!next) return
  const old = findCondition(crd, next.type)
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) return
  setCondition(crd, next)
}

/**
 * The non-structural schema controller: NonStructuralSchema is set only for a schema that is
 * not structural. apiextensions.k8s.io/v1 (the one version served) rejects such schemas on
 * create and update, so here the condition is only ever removed (as the reference does once
 * a schema becomes structural).
 */
export function reconcileStructural(crd: KubeObject): void {
  if (findCondition(crd, 'NonStructuralSchema')) removeCondition(crd, 'NonStructuralSchema')
}

/** Every status controller in turn, as the CRD is written. */
export function reconcileStatus(crd: KubeObject, others: readonly KubeObject[]): void {
  reconcileNames(crd, others)
  establish(crd)
  reconcileStructural(crd)
  reconcileApproval(crd)
}
