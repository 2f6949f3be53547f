/**
 * Which admission plugins run, and in what order (the reference's
 * `pkg/kubeapiserver/options/plugins.go` and the admission options of
 * `k8s.io/apiserver/pkg/server/options/admission.go`): every plugin has one place in
 * ALL_ORDERED_PLUGINS; the default-on ones run unless disabled, the others when enabled; the
 * deprecated --admission-control names the whole set instead. The order on the command line
 * never matters.
 */
import { DEFAULT_ADMISSION_PLUGINS } from '../../core/options/enums.js'

/** Every plugin in the order it runs (webhooks, quota and AlwaysDeny last, as the reference). */
export const ALL_ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'NodeDeclaredFeatureValidator',
  // New plugins go above: the policies, webhooks, quota and AlwaysDeny stay at the end.
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
]

/** The plugins off unless enabled (the reference's DefaultOffAdmissionPlugins). */
export const DEFAULT_OFF_PLUGINS: ReadonlySet<string> = new Set(ALL_ORDERED_PLUGINS.filter((name) => !(DEFAULT_ADMISSION_PLUGINS as readonly string[]).includes(name)))

/** The admission plugin options of the command line. */
export interface AdmissionPluginOptions {
  /** --enable-admission-plugins. */
  enable: readonly string[]
  /** --disable-admission-plugins. */
  disable: readonly string[]
  /** The deprecated --admission-control, when given (even empty): the whole enabled set. */
  admissionControl?: readonly string[]
}

/**
 * The enabled plugins in ALL_ORDERED_PLUGINS's order: off are the default-off ones and the
 * disabled ones, except those enabled. --admission-control enables its plugins and disables
 * every other (the reference's computePluginNames).
 */
export function enabledPluginNames(options: AdmissionPluginOptions): string[] {
  const enable = options.admissionControl ?? options.enable
  const disable = options.admissionControl ? ALL_ORDERED_PLUGINS.filter((name) => !options.admissionControl!.includes(name)) : options.disable
  const off = new Set([...DEFAULT_OFF_PLUGINS, ...disable])
  for (const name of enable) off.delete(name)
  return ALL_ORDERED_PLUGINS.filter((name) => !off.has(name))
}
