/**
 * Owner references as the reference's controllers write and read them: the controller's
 * reference (metav1.NewControllerRef) and the one object that controls another.
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

/** NewControllerRef: controller and blockOwnerDeletion true. */
export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }
}

/** GetControllerOf. */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  const refs = object.metadata.ownerReferences
  return Array.isArray(refs) ? (refs as OwnerReference[]).find((r) => r.controller === true) : undefined
}

export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return controllerOf(object)?.uid === owner.metadata.uid
}
