/**
 * The order of the API groups in discovery: the reference's group priorities, which both the
 * legacy APIGroupList (discovery.ts) and the aggregated documents (discovery-aggregated.ts)
 * list the groups by.
 */

/** The reference's group priorities (kube-aggregator's APIService priorities); CRD groups get 1000. */
const GROUP_PRIORITY: Readonly<Record<string, number>> = {
  '': 18000,
  'apiregistration.k8s.io': 18000,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'internal.apiserver.k8s.io': 16000,
  'resource.k8s.io': 15900,
  'storagemigration.k8s.io': 15800,
}
const CUSTOM_GROUP_PRIORITY = 1000

/** A built-in group's discovery priority (higher first); custom groups get the CRDs' 1000. */
export function groupPriority(group: string, custom = false): number {
  return custom ? CUSTOM_GROUP_PRIORITY : (GROUP_PRIORITY[group] ?? CUSTOM_GROUP_PRIORITY)
}
