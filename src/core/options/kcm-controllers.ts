/**
 * kube-controller-manager's controller names (cmd/kube-controller-manager/names), the aliases
 * its `--controllers` still accepts (KCMControllerAliases: the names before 1.30, kept for
 * compatibility), the ones off unless named (bootstrap-signer, token-cleaner), and the flag's
 * rule (staging/src/k8s.io/controller-manager/app IsControllerEnabled): a name enables, `-name`
 * disables, the first mention wins; without one, `*` enables every on-by-default controller.
 */
export const KCM_CONTROLLER_NAMES: readonly string[] = [
  'serviceaccount-token-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'replicationcontroller-controller',
  'pod-garbage-collector-controller',
  'resourcequota-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'garbage-collector-controller',
  'daemonset-controller',
  'job-controller',
  'deployment-controller',
  'replicaset-controller',
  'horizontal-pod-autoscaler-controller',
  'disruption-controller',
  'statefulset-controller',
  'cronjob-controller',
  'certificatesigningrequest-signing-controller',
  'certificatesigningrequest-approving-controller',
  'certificatesigningrequest-cleaner-controller',
  'ttl-controller',
  'bootstrap-signer-controller',
  'token-cleaner-controller',
  'node-ipam-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'service-lb-controller',
  'node-route-controller',
  'cloud-node-lifecycle-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-attach-detach-controller',
  'persistentvolume-expander-controller',
  'clusterrole-aggregation-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'ttl-after-finished-controller',
  'root-ca-certificate-publisher-controller',
  'service-ca-certificate-publisher-controller',
  'ephemeral-volume-controller',
  'storageversion-garbage-collector-controller',
  'resourceclaim-controller',
  'legacy-serviceaccount-token-cleaner-controller',
  'validatingadmissionpolicy-status-controller',
  'service-cidr-controller',
  'storage-version-migrator-controller',
  'selinux-warning-controller',
  'device-taint-eviction-controller',
]

export const KCM_CONTROLLER_ALIASES: Readonly<Record<string, string>> = {
  'serviceaccount-token': 'serviceaccount-token-controller',
  endpoint: 'endpoints-controller',
  endpointslice: 'endpointslice-controller',
  endpointslicemirroring: 'endpointslice-mirroring-controller',
  replicationcontroller: 'replicationcontroller-controller',
  podgc: 'pod-garbage-collector-controller',
  resourcequota: 'resourcequota-controller',
  namespace: 'namespace-controller',
  serviceaccount: 'serviceaccount-controller',
  garbagecollector: 'garbage-collector-controller',
  daemonset: 'daemonset-controller',
  job: 'job-controller',
  deployment: 'deployment-controller',
  replicaset: 'replicaset-controller',
  horizontalpodautoscaling: 'horizontal-pod-autoscaler-controller',
  disruption: 'disruption-controller',
  statefulset: 'statefulset-controller',
  cronjob: 'cronjob-controller',
  csrsigning: 'certificatesigningrequest-signing-controller',
  csrapproving: 'certificatesigningrequest-approving-controller',
  csrcleaner: 'certificatesigningrequest-cleaner-controller',
  ttl: 'ttl-controller',
  bootstrapsigner: 'bootstrap-signer-controller',
  tokencleaner: 'token-cleaner-controller',
  nodeipam: 'node-ipam-controller',
  nodelifecycle: 'node-lifecycle-controller',
  service: 'service-lb-controller',
  route: 'node-route-controller',
  'cloud-node-lifecycle': 'cloud-node-lifecycle-controller',
  'persistentvolume-binder': 'persistentvolume-binder-controller',
  attachdetach: 'persistentvolume-attach-detach-controller',
  'persistentvolume-expander': 'persistentvolume-expander-controller',
  'clusterrole-aggregation': 'clusterrole-aggregation-controller',
  'pvc-protection': 'persistentvolumeclaim-protection-controller',
  'pv-protection': 'persistentvolume-protection-controller',
  'ttl-after-finished': 'ttl-after-finished-controller',
  'root-ca-cert-publisher': 'root-ca-certificate-publisher-controller',
  'service-ca-cert-publisher': 'service-ca-certificate-publisher-controller',
  'ephemeral-volume': 'ephemeral-volume-controller',
  'storage-version-gc': 'storageversion-garbage-collector-controller',
  'resource-claim-controller': 'resourceclaim-controller',
  'legacy-service-account-token-cleaner': 'legacy-serviceaccount-token-cleaner-controller',
}

export const KCM_DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(['bootstrap-signer-controller', 'token-cleaner-controller'])

/** The canonical name of a controller name or alias. */
export function canonicalControllerName(name: string): string {
  return KCM_CONTROLLER_ALIASES[name] ?? name
}

/** Whether `--controllers` (aliases allowed) enables the controller `name` (canonical or alias). */
export function isControllerEnabled(name: string, controllers: readonly string[]): boolean {
  const wanted = canonicalControllerName(name)
  let star = false
  for (const item of controllers) {
    const negated = item.startsWith('-')
    const named = canonicalControllerName(negated ? item.slice(1) : item)
    if (item === '*') star = true
    else if (named === wanted) return !negated
  }
  return star && !KCM_DISABLED_BY_DEFAULT.has(wanted)
}

/** The reference's refusal of an unknown name (GenericControllerManagerConfigurationOptions.Validate). */
export function unknownControllerErrors(controllers: readonly string[]): string[] {
  const known = new Set(KCM_CONTROLLER_NAMES)
  return controllers
    .filter((item) => item !== '*')
    .map((item) => item.replace(/^-/, ''))
    .filter((name) => !known.has(canonicalControllerName(name)))
    .map((name) => `${JSON.stringify(name)} is not in the list of known controllers`)
}
