/**
 * Feature gates of the `core` component, transcribed from spec section 4.8 (names as the
 * spec writes them; stage and default as listed there). `AllAlpha` and `AllBeta` switch a
 * whole stage (spec section 9.5).
 */

type FeatureGateStage = 'alpha' | 'beta'

interface FeatureGateInfo {
  readonly name: string
  readonly stage: FeatureGateStage
  readonly default: boolean
}

/** Gate names with stage `alpha`, default false. */
const ALPHA_DEFAULT_OFF = [
  'APIServingWithRoutine',
  'AllAlpha',
  'AllowUnsafeMalformedObjectDeletion',
  'CBORServingAndStorage',
  'CPUManagerPolicyAlphaOptions',
  'CSIVolumeHealth',
  'ClientsAllowCBOR',
  'ClientsPreferCBOR',
  'CloudControllerManagerWatchBasedRoutesReconciliation',
  'CloudControllerManagerWebhook',
  'ComponentFlagz',
  'ComponentStatusz',
  'ConstrainedImpersonation',
  'ContainerStopSignals',
  'CrossNamespaceVolumeDataSource',
  'CustomCPUCFSQuotaPeriod',
  'DRAConsumableCapacity',
  'DRADeviceBindingConditions',
  'DRADeviceTaintRules',
  'DRADeviceTaints',
  'DRAExtendedResource',
  'DRAPartitionableDevices',
  'EventedPLEG',
  'GangScheduling',
  'GenericWorkload',
  'HPAScaleToZero',
  'InPlacePodLevelResourcesVerticalScaling',
  'InPlacePodVerticalScalingExclusiveCPUs',
  'InPlacePodVerticalScalingExclusiveMemory',
  'InTreePluginVendorUnregister',
  'NodeAgentInUserNamespace',
  'LoggingAlphaOptions',
  'MemoryQoS',
  'MutablePVNodeAffinity',
  'MutablePodResourcesForSuspendedJobs',
  'MutableSchedulingDirectivesForSuspendedJobs',
  'NodeDeclaredFeatures',
  'PodAndContainerStatsFromCRI',
  'PodLogsQuerySplitStreams',
  'QOSReserved',
  'ReduceDefaultCrashLoopBackOffDecay',
  'RelaxedServiceNameValidation',
  'ResourceHealthStatus',
  'RestartAllContainersOnContainerExits',
  'RuntimeClassInImageCriApi',
  'StorageCapacityScoring',
  'StorageVersionAPI',
  'StrictIPCIDRValidation',
  'TaintTolerationComparisonOperators',
  'TopologyManagerPolicyAlphaOptions',
  'UnknownVersionInteroperabilityProxy',
  'UserNamespacesHostNetworkSupport',
  'VolumeLimitScaling',
  'WindowsCPUAndMemoryAffinity',
] as const

/** Gate names with stage `beta`, default false. */
const BETA_DEFAULT_OFF = [
  'AllBeta',
  'CRDObservedGenerationTracking',
  'ClusterTrustBundle',
  'ClusterTrustBundleProjection',
  'ConcurrentWatchObjectDecode',
  'CoordinatedLeaderElection',
  'DeclarativeValidationTakeover',
  'LocalStorageCapacityIsolationFSQuotaMonitoring',
  'MutatingAdmissionPolicy',
  'NodeLogQuery',
  'PodCertificateRequest',
  'SELinuxMount',
  'StorageVersionMigrator',
  'WatchCacheInitializationPostStartHook',
] as const

/** Gate names with stage `beta`, default true. */
const BETA_DEFAULT_ON = [
  'APIResponseCompression',
  'APIServerIdentity',
  'AllowParsingUserUIDFromCertAuth',
  'AuthorizePodWebsocketUpgradeCreatePermission',
  'CPUManagerPolicyBetaOptions',
  'CSIServiceAccountTokenSecrets',
  'ClearingNominatedNodeNameAfterBinding',
  'ContainerCheckpoint',
  'ContainerRestartRules',
  'ContextualLogging',
  'DRAAdminAccess',
  'DRAPrioritizedList',
  'DRAResourceClaimDeviceStatus',
  'DRASchedulerFilterTimeout',
  'DeclarativeValidation',
  'DeploymentReplicaSetTerminatingReplicas',
  'DetectCacheInconsistency',
  'DisableCPUQuotaWithExclusiveCPUs',
  'EnvFiles',
  'ExternalServiceAccountTokenSigner',
  'GracefulNodeShutdown',
  'GracefulNodeShutdownBasedOnPodPriority',
  'HPAConfigurableTolerance',
  'HostnameOverride',
  'ImageVolume',
  'InOrderInformers',
  'InOrderInformersBatchProcess',
  'NodeAgentCrashLoopBackOffMax',
  'NodeAgentEnsureSecretPulledImages',
  'NodeAgentFineGrainedAuthz',
  'NodeAgentPSI',
  'NodeAgentPodResourcesDynamicResources',
  'NodeAgentPodResourcesGet',
  'NodeAgentSeparateDiskGC',
  'NodeAgentServiceAccountTokenForCredentialProviders',
  'ListFromCacheSnapshot',
  'LoggingBetaOptions',
  'MatchLabelKeysInPodTopologySpread',
  'MatchLabelKeysInPodTopologySpreadSelectorMerge',
  'MaxUnavailableStatefulSet',
  'MutableCSINodeAllocatableCount',
  'NominatedNodeNameForExpectation',
  'OpenAPIEnums',
  'OpportunisticBatching',
  'PodDeletionCost',
  'PodLevelResources',
  'PodReadyToStartContainersCondition',
  'PodTopologyLabelsAdmission',
  'PortForwardWebsockets',
  'PreventStaticPodAPIReferences',
  'ProcMountType',
  'ReloadNodeAgentServerCertificateFile',
  'RemoteRequestHeaderUID',
  'RotateNodeAgentServerCertificate',
  'SELinuxChangePolicy',
  'SELinuxMountReadWriteOncePod',
  'SchedulerAsyncAPICalls',
  'SchedulerAsyncPreemption',
  'SchedulerPopFromBackoffQ',
  'ServiceAccountNodeAudienceRestriction',
  'SizeBasedListCostEstimate',
  'StatefulSetSemanticRevisionComparison',
  'StorageVersionHash',
  'StructuredAuthenticationConfigurationEgressSelector',
  'StructuredAuthenticationConfigurationJWKSMetrics',
  'TokenRequestServiceAccountUIDValidation',
  'TopologyManagerPolicyBetaOptions',
  'TranslateStreamCloseWebsocketRequests',
  'UnauthenticatedHTTP2DOSMitigation',
  'UserNamespacesSupport',
  'WatchList',
  'WatchListClient',
  'WindowsGracefulNodeShutdown',
] as const

export const FEATURE_GATES: readonly FeatureGateInfo[] = Object.freeze([
  ...ALPHA_DEFAULT_OFF.map((name) => ({ name, stage: 'alpha' as const, default: false })),
  ...BETA_DEFAULT_OFF.map((name) => ({ name, stage: 'beta' as const, default: false })),
  ...BETA_DEFAULT_ON.map((name) => ({ name, stage: 'beta' as const, default: true })),
])

const BY_NAME: ReadonlyMap<string, FeatureGateInfo> = new Map(FEATURE_GATES.map((g) => [g.name, g]))

/** The gate of that exact (case-sensitive) name, or undefined when it is not known. */
export function featureGate(name: string): FeatureGateInfo | undefined {
  return BY_NAME.get(name)
}
