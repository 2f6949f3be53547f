/**
 * Controller references as the reference's controllers write and follow them
 * (metav1.NewControllerRef, GetControllerOf, and the ControllerRefManager's claim: adopt a
 * matching orphan, release an owned object that no longer matches, leave others' alone).
 */
import type { KubeObject } from '../../api/registry/object.js'

export interface OwnerReference {
  apiVersion: string
  kind: string
  name: string
  uid: string
  controller?: boolean
  blockOwnerDeletion?: boolean
}

/** metav1.NewControllerRef: controller and blockOwnerDeletion true. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }
}

export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  const refs = obj.metadata.ownerReferences as OwnerReference[] | undefined
  return refs?.find((r) => r.controller === true)
}

export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return controllerOf(obj)?.uid === owner.metadata.uid
}

export type Claim = 'owned' | 'adopt' | 'release' | 'ignore'

/**
 * What the ControllerRefManager does with `obj` for `owner`: keep it, adopt it (an orphan the
 * selector matches, while neither is being deleted), release it (owned, no longer matching), or
 * leave it (another controller's, or an orphan that does not match).
 */
export function claimOf(obj: KubeObject, owner: KubeObject, matches: boolean): Claim {
  const ref = controllerOf(obj)
  if (ref) {
    if (ref.uid !== owner.metadata.uid) return 'ignore'
    if (matches) return 'owned'
    return owner.metadata.deletionTimestamp ? 'owned' : 'release'
  }
  if (!matches || owner.metadata.deletionTimestamp || obj.metadata.deletionTimestamp) return 'ignore'
  return 'adopt'
}

/** The object with `ref` added to its owner references (adoption). */
export function withOwner(obj: KubeObject, ref: OwnerReference): KubeObject {
  const refs = ((obj.metadata.ownerReferences as OwnerReference[] | undefined) ?? []).filter((r) => r.uid !== ref.uid)
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: [...refs, ref] } }
}

/** The object without the owner reference of `uid` (release). */
export function withoutOwner(obj: KubeObject, uid: string): KubeObject {
  const refs = ((obj.metadata.ownerReferences as OwnerReference[] | undefined) ?? []).filter((r) => r.uid !== uid)
  const metadata = { ...obj.metadata, ownerReferences: refs }
  if (refs.length === 0) delete (metadata as { ownerReferences?: unknown }).ownerReferences
  return { ...obj, metadata }
}
