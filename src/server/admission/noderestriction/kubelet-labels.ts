/**
 * Which Node labels a kubelet may set (the reference's NodeRestriction getForbiddenLabels and
 * k8s.io/kubelet/pkg/apis well_known_labels.go): anything outside kubernetes.io and k8s.io, the
 * well-known labels a kubelet sets itself, and the `kubelet.kubernetes.io` and
 * `node.kubernetes.io` namespaces (and their subdomains); never the `node-restriction.kubernetes.io`
 * namespace, which exists so that administrators can steer workloads by labels a node cannot
 * give itself.
 */

/** The labels a kubelet sets on its Node (the reference's kubeletLabels). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
])

/** The label namespaces a kubelet may use (the reference's kubeletLabelNamespaces). */
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io']

/** The namespace reserved to administrators (v1.LabelNamespaceNodeRestriction). */
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io'

function labelNamespace(key: string): string {
  const slash = key.indexOf('/')
  return slash === -1 ? '' : key.slice(0, slash)
}

function inNamespace(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`)
}

function isKubernetesLabel(key: string): boolean {
  const namespace = labelNamespace(key)
  return inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io')
}

/** The reference's kubeletapis.IsKubeletLabel. */
export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true
  const namespace = labelNamespace(key)
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed))
}

/** The keys added, removed or changed between two label maps. */
export function modifiedLabels(a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>> = {}): Set<string> {
  const modified = new Set<string>()
  for (const [k, v] of Object.entries(a)) if (!Object.hasOwn(b, k) || b[k] !== v) modified.add(k)
  for (const [k, v] of Object.entries(b)) if (!Object.hasOwn(a, k) || a[k] !== v) modified.add(k)
  return modified
}

/** Of the modified keys, those a node may not add, remove or change, sorted (sets.String.List). */
export function forbiddenLabels(modified: Iterable<string>): string[] {
  const forbidden: string[] = []
  for (const key of modified) {
    if (inNamespace(labelNamespace(key), NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(key) && !isKubeletLabel(key))) forbidden.push(key)
  }
  return forbidden.sort()
}
