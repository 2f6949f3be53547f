/**
 * The admission plugins this server has, by name (the reference's
 * RegisterAllAdmissionPlugins): one line per plugin, every name the options allow (a test keeps
 * the two the same); its place in the order is in enabled-plugins.ts.
 */
import { ALWAYS_ADMIT, AlwaysAdmit } from './always-admit.js'
import { ALWAYS_DENY, AlwaysDeny } from './always-deny.js'
import { ALWAYS_PULL_IMAGES, AlwaysPullImages } from './always-pull-images.js'
import { LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, LimitPodHardAntiAffinityTopology } from './anti-affinity.js'
import { CERTIFICATE_APPROVAL, CertificateApproval } from './certificate-approval.js'
import { CERTIFICATE_SIGNING, CertificateSigning } from './certificate-signing.js'
import { CERTIFICATE_SUBJECT_RESTRICTION, CertificateSubjectRestriction } from './certificate-subject-restriction.js'
import { CLUSTER_TRUST_BUNDLE_ATTEST, ClusterTrustBundleAttest } from './cluster-trust-bundle-attest.js'
import { DEFAULT_INGRESS_CLASS, DefaultIngressClass } from './default-ingress-class.js'
import { DEFAULT_STORAGE_CLASS, DefaultStorageClass } from './default-storage-class.js'
import { DEFAULT_TOLERATION_SECONDS, DefaultTolerationSeconds } from './default-toleration-seconds.js'
import { DENY_SERVICE_EXTERNAL_IPS, DenyServiceExternalIPs } from './deny-service-external-ips.js'
import { EVENT_RATE_LIMIT, EventRateLimit } from './eventratelimit/admission.js'
import { EXTENDED_RESOURCE_TOLERATION, ExtendedResourceToleration } from './extended-resource-toleration.js'
import { IMAGE_POLICY_WEBHOOK, ImagePolicyWebhook } from './imagepolicy/admission.js'
import { LIMIT_RANGER, LimitRanger } from './limitranger/limitranger.js'
import { NAMESPACE_AUTO_PROVISION, NamespaceAutoProvision } from './namespace-autoprovision.js'
import { NAMESPACE_EXISTS, NamespaceExists } from './namespace-exists.js'
import { NAMESPACE_LIFECYCLE, NamespaceLifecycle } from './namespace-lifecycle.js'
import { NODE_DECLARED_FEATURE_VALIDATOR, NodeDeclaredFeatureValidator } from './nodedeclaredfeatures.js'
import { NODE_RESTRICTION, NodeRestriction } from './noderestriction/admission.js'
import { MUTATING_ADMISSION_POLICY, MutatingAdmissionPolicy } from './policy/mutating/plugin.js'
import { MUTATING_ADMISSION_WEBHOOK, MutatingAdmissionWebhook } from './webhook/mutating.js'
import { VALIDATING_ADMISSION_WEBHOOK, ValidatingAdmissionWebhook } from './webhook/validating.js'
import { VALIDATING_ADMISSION_POLICY, ValidatingAdmissionPolicy } from './policy/validating/dispatcher.js'
import { TAINT_NODES_BY_CONDITION, TaintNodesByCondition } from './node-taint.js'
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT, OwnerReferencesPermissionEnforcement } from './owner-references-permission-enforcement.js'
import { PERSISTENT_VOLUME_CLAIM_RESIZE, PersistentVolumeClaimResize } from './persistent-volume-claim-resize.js'
import { Plugins } from './plugins.js'
import { POD_NODE_SELECTOR, PodNodeSelector } from './pod-node-selector.js'
import { POD_SECURITY, PodSecurity } from './pod-security/admission.js'
import { POD_TOLERATION_RESTRICTION, PodTolerationRestriction } from './pod-toleration-restriction.js'
import { POD_TOPOLOGY_LABELS, PodTopologyLabels } from './podtopologylabels.js'
import { PRIORITY, Priority } from './priority.js'
import { RESOURCE_QUOTA, ResourceQuota } from './resourcequota/admission.js'
import { RUNTIME_CLASS, RuntimeClass } from './runtime-class.js'
import { SERVICE_ACCOUNT, ServiceAccount } from './serviceaccount.js'
import { STORAGE_OBJECT_IN_USE_PROTECTION, StorageObjectInUseProtection } from './storage-object-in-use-protection.js'

export function registerAllAdmissionPlugins(plugins: Plugins): void {
  plugins.register(NAMESPACE_LIFECYCLE, (init) => new NamespaceLifecycle(init))
  plugins.register(PRIORITY, (init) => new Priority(init))
  plugins.register(DEFAULT_STORAGE_CLASS, (init) => new DefaultStorageClass(init))
  plugins.register(STORAGE_OBJECT_IN_USE_PROTECTION, () => new StorageObjectInUseProtection())
  plugins.register(OWNER_REFERENCES_PERMISSION_ENFORCEMENT, (init) => new OwnerReferencesPermissionEnforcement(init))
  plugins.register(PERSISTENT_VOLUME_CLAIM_RESIZE, (init) => new PersistentVolumeClaimResize(init))
  plugins.register(RUNTIME_CLASS, (init) => new RuntimeClass(init))
  plugins.register(CERTIFICATE_APPROVAL, (init) => new CertificateApproval(init))
  plugins.register(CERTIFICATE_SIGNING, (init) => new CertificateSigning(init))
  plugins.register(CLUSTER_TRUST_BUNDLE_ATTEST, (init) => new ClusterTrustBundleAttest(init))
  plugins.register(CERTIFICATE_SUBJECT_RESTRICTION, () => new CertificateSubjectRestriction())
  plugins.register(DEFAULT_INGRESS_CLASS, (init) => new DefaultIngressClass(init))
  plugins.register(POD_SECURITY, (init, config) => new PodSecurity(init, config))
  plugins.register(ALWAYS_ADMIT, (init) => new AlwaysAdmit(init))
  plugins.register(ALWAYS_DENY, (init) => new AlwaysDeny(init))
  plugins.register(ALWAYS_PULL_IMAGES, () => new AlwaysPullImages())
  plugins.register(NAMESPACE_AUTO_PROVISION, (init) => new NamespaceAutoProvision(init))
  plugins.register(NAMESPACE_EXISTS, (init) => new NamespaceExists(init))
  plugins.register(DEFAULT_TOLERATION_SECONDS, (init) => new DefaultTolerationSeconds(init))
  plugins.register(LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, () => new LimitPodHardAntiAffinityTopology())
  plugins.register(EXTENDED_RESOURCE_TOLERATION, () => new ExtendedResourceToleration())
  plugins.register(TAINT_NODES_BY_CONDITION, () => new TaintNodesByCondition())
  plugins.register(DENY_SERVICE_EXTERNAL_IPS, () => new DenyServiceExternalIPs())
  plugins.register(POD_NODE_SELECTOR, (init, pluginConfig) => new PodNodeSelector(init, pluginConfig))
  plugins.register(POD_TOLERATION_RESTRICTION, (init, pluginConfig) => new PodTolerationRestriction(init, pluginConfig))
  plugins.register(LIMIT_RANGER, (init) => new LimitRanger(init))
  plugins.register(SERVICE_ACCOUNT, (init) => new ServiceAccount(init))
  plugins.register(RESOURCE_QUOTA, (init, pluginConfig) => new ResourceQuota(init, pluginConfig))
  plugins.register(MUTATING_ADMISSION_POLICY, (init) => new MutatingAdmissionPolicy(init))
  plugins.register(MUTATING_ADMISSION_WEBHOOK, (init) => new MutatingAdmissionWebhook(init))
  plugins.register(VALIDATING_ADMISSION_WEBHOOK, (init) => new ValidatingAdmissionWebhook(init))
  plugins.register(EVENT_RATE_LIMIT, (_init, pluginConfig) => new EventRateLimit(pluginConfig))
  plugins.register(IMAGE_POLICY_WEBHOOK, (init, pluginConfig) => new ImagePolicyWebhook(init, pluginConfig))
  plugins.register(NODE_RESTRICTION, (init) => new NodeRestriction(init))
  plugins.register(POD_TOPOLOGY_LABELS, (init) => new PodTopologyLabels(init))
  plugins.register(NODE_DECLARED_FEATURE_VALIDATOR, (init) => new NodeDeclaredFeatureValidator(init))
  plugins.register(VALIDATING_ADMISSION_POLICY, (init) => new ValidatingAdmissionPolicy(init))
}

/** A registry holding every plugin of this server. */
export function allAdmissionPlugins(): Plugins {
  const plugins = new Plugins()
  registerAllAdmissionPlugins(plugins)
  return plugins
}
