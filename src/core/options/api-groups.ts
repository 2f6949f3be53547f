/**
 * The API groups and versions the reference server (v1.35) serves, built-in, extension and
 * aggregation layers together, plus the versions of the v1.36 document this server serves
 * beyond them (scheduling v1alpha2: PodGroup, Workload). `--runtime-config` may only name
 * these; the server's discovery serves the subset it implements.
 */
export const API_GROUP_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  '': ['v1'],
  'admissionregistration.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'apiextensions.k8s.io': ['v1'],
  'apiregistration.k8s.io': ['v1'],
  apps: ['v1'],
  'authentication.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'authorization.k8s.io': ['v1'],
  autoscaling: ['v1', 'v2'],
  batch: ['v1'],
  'certificates.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'coordination.k8s.io': ['v1', 'v1beta1', 'v1alpha2'],
  'discovery.k8s.io': ['v1'],
  'events.k8s.io': ['v1'],
  'flowcontrol.apiserver.k8s.io': ['v1'],
  'internal.apiserver.k8s.io': ['v1alpha1'],
  'networking.k8s.io': ['v1', 'v1beta1'],
  'node.k8s.io': ['v1'],
  policy: ['v1'],
  'rbac.authorization.k8s.io': ['v1'],
  'resource.k8s.io': ['v1', 'v1beta1', 'v1beta2', 'v1alpha3'],
  'scheduling.k8s.io': ['v1', 'v1alpha1', 'v1alpha2'],
  'storage.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'storagemigration.k8s.io': ['v1beta1', 'v1alpha1'],
}

type VersionStability = 'ga' | 'beta' | 'alpha'

/** `v1` is GA, `v1beta2` beta, `v1alpha1` alpha, as `api/ga`, `api/beta` and `api/alpha` group them. */
export function versionStability(version: string): VersionStability | undefined {
  if (/^v\d+$/.test(version)) return 'ga'
  if (/^v\d+beta\d+$/.test(version)) return 'beta'
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha'
  return undefined
}
