/**
 * Controller references as the reference's controllers write and follow them
 * (metav1.NewControllerRef, GetControllerOf, and the ControllerRefManager's claim: adopt a
 * matching orphan, release an owned object that no longer matches, leave others' alone).
 */
import type { KubeObject } from '../../api/registry/object.js'
import { type OwnerReference, controllerOf } from '../kit/owners.js'

// One definition of owner references for every controller (kit/owners.ts); the claim is the workloads' own.
export { type OwnerReference, controllerOf, controllerRef, isControlledBy } from '../kit/owners.js'

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
