/**
 * The priorities of the local APIServices, after the reference's table
 * (pkg/controlplane/apiserver DefaultGenericAPIServicePriorities merged with
 * cmd/kube-apiserver/app's apiVersionPriorities): the group's priority orders the groups in
 * discovery, the version's orders the versions inside one group (higher first).
 */
import { groupPriority } from '../api/discovery-group-priority.js'

/** The reference's version priorities, keyed `<group>/<version>` (the core group is `/v1`). */
const VERSION_PRIORITY: Readonly<Record<string, number>> = {
  '/v1': 1,
  'apiregistration.k8s.io/v1': 15,
  'apps/v1': 15,
  'events.k8s.io/v1': 15,
  'events.k8s.io/v1beta1': 5,
  'authentication.k8s.io/v1': 15,
  'authentication.k8s.io/v1beta1': 9,
  'authentication.k8s.io/v1alpha1': 1,
  'authorization.k8s.io/v1': 15,
  'autoscaling/v1': 15,
  'autoscaling/v2': 30,
  'autoscaling/v2beta1': 9,
  'autoscaling/v2beta2': 1,
  'batch/v1': 15,
  'batch/v1beta1': 9,
  'certificates.k8s.io/v1': 15,
  'certificates.k8s.io/v1beta1': 9,
  'certificates.k8s.io/v1alpha1': 1,
  'networking.k8s.io/v1': 15,
  'networking.k8s.io/v1beta1': 9,
  'policy/v1': 15,
  'policy/v1beta1': 9,
  'rbac.authorization.k8s.io/v1': 15,
  'storage.k8s.io/v1': 15,
  'storage.k8s.io/v1beta1': 9,
  'storage.k8s.io/v1alpha1': 1,
  'apiextensions.k8s.io/v1': 15,
  'admissionregistration.k8s.io/v1': 15,
  'admissionregistration.k8s.io/v1beta1': 12,
  'admissionregistration.k8s.io/v1alpha1': 9,
  'scheduling.k8s.io/v1': 15,
  'coordination.k8s.io/v1': 15,
  'coordination.k8s.io/v1beta1': 13,
  'coordination.k8s.io/v1alpha2': 12,
  'node.k8s.io/v1': 15,
  'node.k8s.io/v1beta1': 9,
  'node.k8s.io/v1alpha1': 1,
  'discovery.k8s.io/v1': 15,
  'discovery.k8s.io/v1beta1': 12,
  'flowcontrol.apiserver.k8s.io/v1': 21,
  'flowcontrol.apiserver.k8s.io/v1beta3': 18,
  'flowcontrol.apiserver.k8s.io/v1beta2': 15,
  'flowcontrol.apiserver.k8s.io/v1beta1': 12,
  'flowcontrol.apiserver.k8s.io/v1alpha1': 9,
  'internal.apiserver.k8s.io/v1alpha1': 9,
  'resource.k8s.io/v1beta2': 15,
  'resource.k8s.io/v1beta1': 9,
  'resource.k8s.io/v1alpha3': 1,
  'storagemigration.k8s.io/v1alpha1': 9,
}

/**
 * A built-in group version's priorities. A version the table does not name (a newer one than
 * the table this was taken from) gets the reference's advice for new entries: 15 for GA, 9 for
 * beta, 1 for alpha.
 */
export function apiServicePriority(group: string, version: string): { group: number; version: number } {
  const listed = VERSION_PRIORITY[`${group}/${version}`]
  const fallback = /alpha/.test(version) ? 1 : /beta/.test(version) ? 9 : 15
  return { group: groupPriority(group), version: listed ?? fallback }
}
