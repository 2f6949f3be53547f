/**
 * The reference's rules of deletion (apiserver registry/rest/delete.go BeforeDelete and the
 * generic store's finalizer handling), as pure functions over one object: graceful deletion
 * (pods only), the garbage collector's `orphan` / `foregroundDeletion` finalizers the
 * propagation policy asks for, marking an object as being deleted, when an update that empties
 * the finalizers deletes the object, and the fields clients may not touch while it is deleted.
 */
import { type Cause } from '../status-errors.js'
import { type KubeObject, isPlainObject, nowTimestamp } from './object.js'
import type { Strategy } from './strategy.js'

export const ORPHAN_FINALIZER = 'orphan'
export const FOREGROUND_FINALIZER = 'foregroundDeletion'
/** The namespace controller's entry in a namespace's spec.finalizers. */
export const NAMESPACE_FINALIZER = 'kubernetes'

export interface DeletionRequest {
  gracePeriodSeconds?: number
  propagationPolicy?: string
  /** The deprecated orphanDependents, as sent (it also decides the 202 answer). */
  orphanDependents?: boolean
}

function isCore(strategy: Strategy, resource: string): boolean {
  return strategy.group === '' && strategy.resource === resource
}

export function isNamespaces(strategy: Strategy): boolean {
  return isCore(strategy, 'namespaces')
}

export function isPods(strategy: Strategy): boolean {
  return isCore(strategy, 'pods')
}

/**
 * Whether deletion handles dependents of this kind at all: events are the reference's
 * Unsupported policy. Every served version's default is background (DeleteDependents); the
 * orphaning defaults belong to API versions this server does not serve (extensions/v1beta1,
 * apps/v1beta1, apps/v1beta2).
 */
function collectsDependents(strategy: Strategy): boolean {
  return !(strategy.resource === 'events' && (strategy.group === '' || strategy.group === 'events.k8s.io'))
}

export function finalizersOf(obj: KubeObject): string[] {
  const f = obj.metadata.finalizers
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : []
}

/**
 * The finalizers the request's propagation policy asks for (the reference's
 * deletionFinalizersForGarbageCollection): undefined when the set stays the same.
 */
export function finalizersForPropagation(strategy: Strategy, obj: KubeObject, request: DeletionRequest): string[] | undefined {
  if (!collectsDependents(strategy)) return undefined
  const current = finalizersOf(obj)
  const policy = request.orphanDependents !== undefined ? (request.orphanDependents ? 'Orphan' : 'Background') : request.propagationPolicy
  const orphan = policy !== undefined ? policy === 'Orphan' : current.includes(ORPHAN_FINALIZER) && !current.includes(FOREGROUND_FINALIZER)
  const foreground = policy !== undefined ? policy === 'Foreground' : current.includes(FOREGROUND_FINALIZER)
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER)
  if (orphan) next.push(ORPHAN_FINALIZER)
  if (foreground) next.push(FOREGROUND_FINALIZER)
  const same = new Set(current).size === new Set(next).size && next.every((f) => current.includes(f))
  return same ? undefined : next
}

function later(seconds: number): string {
  return nowTimestamp(new Date(Date.now() + seconds * 1000))
}

/**
 * The pod strategy's CheckGracefulDelete: the requested period, else the pod's
 * terminationGracePeriodSeconds, else 0; unscheduled and finished pods go at once.
 */
function podGracePeriod(pod: KubeObject, requested: number | undefined): number {
  const spec = isPlainObject(pod.spec) ? pod.spec : {}
  const status = isPlainObject(pod.status) ? pod.status : {}
  let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0)
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') period = 0
  if (status.phase === 'Failed' || status.phase === 'Succeeded') period = 0
  return period < 0 ? 1 : period
}

/**
 * The reference's BeforeDelete on `obj` (changed in place, as `request.gracePeriodSeconds`):
 * `graceful` when the object now carries a (new) deletionTimestamp for a graceful deletion,
 * `pending` when a graceful deletion is already under way and this request changes nothing.
 */
export function beforeDelete(strategy: Strategy, obj: KubeObject, request: DeletionRequest): { graceful: boolean; pending: boolean } {
  if (request.gracePeriodSeconds !== undefined && request.gracePeriodSeconds < 0) request.gracePeriodSeconds = 1
  const meta = obj.metadata
  if (typeof meta.deletionGracePeriodSeconds === 'number' && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1
  if (!isPods(strategy)) return { graceful: false, pending: false }
  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds
    if (typeof current !== 'number') return { graceful: false, pending: false }
    if (request.gracePeriodSeconds !== undefined) {
      // Only a shorter grace period may be asked for once deletion started.
      if (request.gracePeriodSeconds >= current) return { graceful: false, pending: true }
      meta.deletionTimestamp = later(request.gracePeriodSeconds)
      meta.deletionGracePeriodSeconds = request.gracePeriodSeconds
      return { graceful: true, pending: false }
    }
    request.gracePeriodSeconds = current
    return { graceful: false, pending: true }
  }
  const period = podGracePeriod(obj, request.gracePeriodSeconds)
  request.gracePeriodSeconds = period
  meta.deletionTimestamp = later(period)
  meta.deletionGracePeriodSeconds = period
  if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation++
  return { graceful: true, pending: false }
}

/** The reference's markAsDeleting: deleted now (unless earlier), grace period 0. */
export function markAsDeleting(obj: KubeObject): void {
  const meta = obj.metadata
  if (!meta.deletionTimestamp && typeof meta.generation === 'number' && meta.generation > 0) meta.generation++
  const now = nowTimestamp()
  if (!meta.deletionTimestamp || Date.parse(meta.deletionTimestamp) > Date.parse(now)) meta.deletionTimestamp = now
  meta.deletionGracePeriodSeconds = 0
}

/**
 * Whether an update writing `obj` over `old` deletes the object instead (the reference's
 * ShouldDeleteDuringUpdate): no finalizers left on an object being deleted without a grace
 * period running; a namespace also needs its spec.finalizers empty.
 */
export function shouldDeleteDuringUpdate(strategy: Strategy, obj: KubeObject, old: KubeObject): boolean {
  if (finalizersOf(obj).length > 0) return false
  if (!old.metadata.deletionTimestamp) return false
  if (isNamespaces(strategy)) {
    const spec = isPlainObject(obj.spec) ? obj.spec : {}
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) return false
  }
  const grace = old.metadata.deletionGracePeriodSeconds
  return typeof grace !== 'number' || grace === 0
}

function goSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`
}

/**
 * What an update may not change about deletion (the reference's BeforeUpdate and
 * ValidateObjectMetaUpdate): deletionTimestamp stays the stored one, a cleared
 * deletionGracePeriodSeconds is restored, and once deleting no finalizer may be added.
 */
export function guardDeletionFields(obj: KubeObject, old: KubeObject): Cause[] {
  const meta = obj.metadata
  if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp
  else delete meta.deletionTimestamp
  const oldGrace = old.metadata.deletionGracePeriodSeconds
  if (oldGrace !== undefined && meta.deletionGracePeriodSeconds === undefined) meta.deletionGracePeriodSeconds = oldGrace
  const causes: Cause[] = []
  if (meta.deletionGracePeriodSeconds !== oldGrace) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(meta.deletionGracePeriodSeconds ?? null)}: field is immutable`,
      field: 'metadata.deletionGracePeriodSeconds',
    })
  }
  if (old.metadata.deletionTimestamp) {
    const before = new Set(finalizersOf(old))
    const added = [...new Set(finalizersOf(obj).filter((f) => !before.has(f)))].sort()
    if (added.length > 0) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goSlice(added)}`,
        field: 'metadata.finalizers',
      })
    }
  }
  return causes
}
