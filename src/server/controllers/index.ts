/**
 * The table of controllers the server runs, as kube-controller-manager's table of
 * initialisers: one line per controller, in start order. A controller is one file in this
 * room implementing Controller (controller.ts); adding one is that file plus one line here.
 */
import type { Authorizer } from '../authorization/authorizer.js'
import type { PolicyCache } from '../authorization/rbac-policy.js'
import type { SigningKey } from '../authentication/service-account-keys.js'
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import type { ApiserverIdentity } from '../peers/apiserver-id.js'
import type { PeerDiscovery } from '../peers/peer-discovery.js'
import type { Store } from '../store/types.js'
import { APIServiceAvailabilityController } from './apiservice-availability.js'
import { loadProxyClientCertificate } from '../aggregator/transport.js'
import { serviceResolver } from '../aggregator/service-resolver.js'
import { ApiserverIdentityLeaseController } from './apiserver-identity-lease.js'
import { ApiserverLeaseGC } from './apiserver-lease-gc.js'
import { ClusterRoleAggregationController } from './clusterrole-aggregation.js'
import type { Clock } from './clock.js'
import type { Controller } from './controller.js'
import { COORDINATED_LEADER_ELECTION_GATE, CoordinatedLeaderElectionController } from './coordinated-leader-election.js'
import { CRDFinalizer } from './crd-finalizer.js'
import { CronJobController } from './cronjob-controller.js'
import { CRDRegistrationController } from './crd-registration.js'
import { CRDNamingController } from './crd-naming.js'
import { DisruptionController } from './disruption-controller.js'
import { EndpointReconcilerController } from './endpoint-reconciler.js'
import { EndpointsController } from './endpoints-controller.js'
import { EndpointSliceController } from './endpointslice-controller.js'
import { EndpointSliceMirroringController } from './endpointslice-mirroring-controller.js'
import { type FlowConfigurationReads, FlowSchemaStatusController } from './flowschema-status.js'
import { LegacyTokenController } from './serviceaccount-token.js'
import { LeaderElectedControllers } from './leader-elected.js'
import { KCM_CONTROLLER_NAMES, canonicalControllerName, isControllerEnabled } from '../../core/options/kcm-controllers.js'
import { GarbageCollector } from './garbage-collector.js'
import { HorizontalPodAutoscalerController, type PodResourceMetrics } from './horizontal-pod-autoscaler.js'
import { JobController } from './job-controller.js'
import { KubeSchedulerController } from './kube-scheduler.js'
import { NamespaceController } from './namespace-controller.js'
import { NodeLifecycleController } from './node-lifecycle.js'
import { TaintEvictionController } from './taint-eviction.js'
import { PeerDiscoverySync } from './peer-discovery-sync.js'
import { BootstrapSignerController } from './bootstrap-signer.js'
import { CsrApprovingController } from './csr-approving.js'
import { CsrCleanerController } from './csr-cleaner.js'
import { CsrSigningController } from './csr-signing.js'
import { PersistentVolumeBinder } from './persistentvolume-binder.js'
import { PeerEndpointReconciler } from './peer-endpoint-reconciler.js'
import { PodGarbageCollector } from './pod-garbage-collector-controller.js'
import { PodGraceReaper } from './pod-grace-reaper.js'
import { ResourceQuotaController } from './resource-quota.js'
import { RootCACertPublisher } from './root-ca-cert-publisher.js'
import { TTLAfterFinishedController } from './ttl-after-finished-controller.js'
import { TokenCleanerController } from './token-cleaner.js'
import { DaemonSetController } from './daemonset.js'
import { DeploymentController } from './deployment.js'
import { ReplicaSetController } from './replicaset.js'
import { replicationControllerController } from './replication-controller.js'
import { StatefulSetController } from './statefulset.js'
import { ServiceAccountsController } from './service-accounts.js'
import { PVCProtectionController, PVProtectionController } from './storage-object-protection.js'
import { ValidatingAdmissionPolicyStatusController } from './validatingadmissionpolicy-status.js'

/** What the server hands the table when it builds the controllers. */
export interface ControllerDeps {
  readonly config: ServerConfig
  /** Where controllers report what the operator should see (warnings). */
  readonly log: Logger
  /** The RBAC informers' cache: ClusterRole aggregation follows its ClusterRoles. */
  readonly rbacPolicy: PolicyCache
  /** The service-account signing key: legacy token secrets are signed with it. */
  /** Undefined when an external signer signs tokens: the legacy token controller then does not run. */
  readonly serviceAccountSigningKey?: SigningKey
  /** The cluster CA published in token secrets as `ca.crt` (the server's CA, when it made one). */
  readonly caPem?: string
  /**
   * What pods are told to trust for this server (`kube-root-ca.crt`): the server's CA, or the
   * serving certificate chain when the operator gave the certificate (no CA is known then).
   */
  readonly rootCaPem: string
  /** The CA files the server made in --cert-dir (kube-controller-manager's --cluster-signing-cert-file and -key-file): the CSR signer signs with them. */
  readonly clusterSigningFiles?: { readonly cert: string; readonly key: string }
  /** The server's authorizer, for the reviews a controller asks (the CSR approver's SubjectAccessReview). */
  readonly authorizer?: Authorizer
  /** A whole cluster runs (`client cluster start`): the clusterOnly controllers start too. */
  readonly cluster?: boolean
  /** Time as the cluster's controllers read it (a fake one with `cluster start --clock`); the system's when absent. */
  readonly clock?: Clock
  /** kube-controller-manager's --terminated-pod-gc-threshold (12500 when absent; 0 turns that collection off). */
  readonly terminatedPodGcThreshold?: number
  /** The pods' resource metrics (`metrics.k8s.io`'s numbers) a whole cluster serves, for the autoscaler. */
  readonly podResourceMetrics?: PodResourceMetrics
  /** The open store as the server holds it, for keys that are not API objects (the master leases). */
  store(): Store
  /** The address this server advertises in the `kubernetes` Endpoints. */
  readonly endpointAddress: string
  /** Resolves true once the `kubernetes` Service is written after ready, false when shutdown came first. */
  readonly kubernetesServiceWritten: Promise<boolean>
  /** Each read of the flow-control configuration (the FlowSchema status writer follows them). */
  readonly flowConfigurationReads: FlowConfigurationReads
  /** Who this server is among the servers on its store (its identity Lease and peer address). */
  readonly identity: ApiserverIdentity
  /** The peers' discovery, with the mixed-version proxy on. */
  readonly peerDiscovery?: PeerDiscovery
}

const gate = (deps: ControllerDeps, name: string): boolean => deps.config.featureGates.get(name) === true

export interface ControllerEntry {
  readonly name: string
  /** Off when the configuration turns it off (the reference's `--controllers` and per-controller options). */
  enabled?(deps: ControllerDeps): boolean
  /**
   * Run only in a whole cluster (`client cluster start`), not by `client server start`: the
   * reference's controller manager runs it, a bare kube-apiserver does not, and no API answer
   * depends on it. (The other controller-manager controllers here run with the server because
   * its answers need them: deletions finish, pods find their service account.)
   */
  readonly clusterOnly?: boolean
  create(deps: ControllerDeps): Controller
}

export const CONTROLLERS: readonly ControllerEntry[] = [
  { name: 'serviceaccount-controller', create: () => new ServiceAccountsController() },
  { name: 'crd_finalizer', create: () => new CRDFinalizer() },
  { name: 'namespace-controller', create: () => new NamespaceController() },
  { name: 'pod-grace-reaper', create: () => new PodGraceReaper() },
  // Quotas' status.hard and status.used, which the ResourceQuota admission plugin adds to.
  { name: 'resourcequota-controller', create: () => new ResourceQuotaController() },
  // The finalizers the StorageObjectInUseProtection admission plugin adds are removed here.
  { name: 'persistentvolumeclaim-protection-controller', create: () => new PVCProtectionController() },
  { name: 'persistentvolume-protection-controller', create: () => new PVProtectionController() },
  { name: 'garbage-collector-controller', enabled: ({ config }) => config.enableGarbageCollector, create: () => new GarbageCollector() },
  // The ConfigMap the ServiceAccount admission plugin's token volume mounts, for the nodes of a cluster.
  { name: 'root-ca-cert-publisher', clusterOnly: true, create: (d) => new RootCACertPublisher(d.rootCaPem) },
  { name: 'job-controller', clusterOnly: true, create: (d) => new JobController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`job controller: ${err.message}`) }) },
  { name: 'cronjob-controller', clusterOnly: true, create: (d) => new CronJobController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`cronjob controller: ${err.message}`) }) },
  { name: 'ttl-after-finished-controller', clusterOnly: true, create: (d) => new TTLAfterFinishedController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`ttl-after-finished controller: ${err.message}`) }) },
  { name: 'pod-garbage-collector-controller', clusterOnly: true, create: (d) => new PodGarbageCollector({ ...(d.clock ? { clock: d.clock } : {}), ...(d.terminatedPodGcThreshold !== undefined ? { terminatedPodThreshold: d.terminatedPodGcThreshold } : {}), onError: (err) => d.log.warning(`pod garbage collector: ${err.message}`) }) },
  { name: 'endpoints-controller', clusterOnly: true, create: (d) => new EndpointsController({ onError: (err) => d.log.warning(`endpoints controller: ${err.message}`) }) },
  { name: 'endpointslice-controller', clusterOnly: true, create: (d) => new EndpointSliceController({ onError: (err) => d.log.warning(`endpointslice controller: ${err.message}`) }) },
  { name: 'endpointslice-mirroring-controller', clusterOnly: true, create: (d) => new EndpointSliceMirroringController({ onError: (err) => d.log.warning(`endpointslice mirroring controller: ${err.message}`) }) },
  { name: 'disruption-controller', clusterOnly: true, create: (d) => new DisruptionController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`disruption controller: ${err.message}`) }) },
  // kube-scheduler's default profile: pods without a node are bound to one (docs/scheduler.md), under
  // its own Lease kube-system/kube-scheduler with --leader-elect, as a separate kube-scheduler runs.
  { name: 'kube-scheduler', clusterOnly: true, create: (d) => new KubeSchedulerController({ ...(d.clock ? { clock: d.clock } : {}), leaderElect: d.config.cluster?.leaderElect ?? false }) },
  // The workload controllers of kube-controller-manager (docs/controllers.md).
  { name: 'deployment-controller', clusterOnly: true, create: (d) => new DeploymentController(d.clock) },
  { name: 'replicaset-controller', clusterOnly: true, create: (d) => new ReplicaSetController(undefined, d.clock) },
  { name: 'replicationcontroller-controller', clusterOnly: true, create: (d) => replicationControllerController(d.clock) },
  { name: 'daemonset-controller', clusterOnly: true, create: (d) => new DaemonSetController(d.clock) },
  { name: 'statefulset-controller', clusterOnly: true, create: (d) => new StatefulSetController(d.clock) },
  // Resource metrics from the simulated usage (docs/cluster.md); it does not run without them.
  {
    name: 'horizontal-pod-autoscaler-controller',
    clusterOnly: true,
    enabled: (d) => d.podResourceMetrics !== undefined,
    create: (d) => new HorizontalPodAutoscalerController({ metrics: d.podResourceMetrics!, ...(d.clock ? { clock: d.clock } : {}), ...(d.config.cluster ? { syncPeriodMs: d.config.cluster.hpaSyncPeriodMs, downscaleStabilizationMs: d.config.cluster.hpaDownscaleStabilizationMs, tolerance: d.config.cluster.hpaTolerance } : {}), onError: (err) => d.log.warning(`horizontal pod autoscaler: ${err.message}`) }),
  },
  // Claims bound to volumes, and volumes made for them by the simulated provisioner of the default StorageClass `standard`.
  {
    name: 'persistentvolume-binder-controller',
    clusterOnly: true,
    create: (d) => new PersistentVolumeBinder({ ...(d.clock ? { clock: d.clock } : {}), writeDefaultStorageClass: true, onError: (err) => d.log.warning(`persistentvolume binder: ${err.message}`) }),
  },
  // Approved CSRs of the built-in signers signed with the cluster CA; kubelets' client CSRs approved after an authorization check.
  {
    name: 'certificatesigningrequest-signing-controller',
    clusterOnly: true,
    enabled: (d) => d.clusterSigningFiles !== undefined,
    create: (d) => new CsrSigningController({ signingFiles: d.clusterSigningFiles!, ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`csr signing: ${err.message}`) }),
  },
  {
    name: 'certificatesigningrequest-approving-controller',
    clusterOnly: true,
    enabled: (d) => d.authorizer !== undefined,
    create: (d) => new CsrApprovingController({ authorizer: d.authorizer!, ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`csr approving: ${err.message}`) }),
  },
  { name: 'certificatesigningrequest-cleaner-controller', clusterOnly: true, create: (d) => new CsrCleanerController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`csr cleaner: ${err.message}`) }) },
  // Off unless --controllers names them, as in kube-controller-manager: bootstrap tokens sign cluster-info, and expire.
  { name: 'bootstrap-signer-controller', clusterOnly: true, create: (d) => new BootstrapSignerController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`bootstrap signer: ${err.message}`) }) },
  { name: 'token-cleaner-controller', clusterOnly: true, create: (d) => new TokenCleanerController({ ...(d.clock ? { clock: d.clock } : {}), onError: (err) => d.log.warning(`token cleaner: ${err.message}`) }) },
  // Nodes whose heartbeats stop: Unknown conditions and taints, then their pods evicted after their tolerations.
  {
    name: 'node-lifecycle-controller',
    clusterOnly: true,
    create: (d) => new NodeLifecycleController({ gracePeriodMs: d.config.cluster?.nodeMonitorGracePeriodMs ?? 50_000, ...(d.clock ? { clock: d.clock } : {}) }),
  },
  { name: 'taint-eviction-controller', clusterOnly: true, create: (d) => new TaintEvictionController(d.clock ? { clock: d.clock } : {}) },
  { name: 'crd_naming_condition_controller', create: () => new CRDNamingController() },
  // As the reference's controller manager does whatever the authorization mode.
  { name: 'clusterrole-aggregation-controller', create: (d) => new ClusterRoleAggregationController(d.rbacPolicy, (err) => d.log.warning(`clusterrole aggregation: ${err.message}`)) },
  // The controller manager's token controller: legacy service-account token secrets are filled.
  {
    name: 'serviceaccount-token-controller',
    // The reference's controller manager signs them with its own --service-account-private-key-file.
    enabled: (d) => d.serviceAccountSigningKey !== undefined,
    create: (d) => new LegacyTokenController({ key: d.serviceAccountSigningKey!, ...(d.caPem ? { caPem: d.caPem } : {}), onError: (err) => d.log.warning(`legacy service-account token controller: ${err.message}`) }),
  },
  // --endpoint-reconciler-type=lease: every server on the store appears in the Endpoints.
  {
    name: 'lease-endpoint-reconciler',
    enabled: (d) => d.config.endpointReconcilerType === 'lease',
    create: (d) => new EndpointReconcilerController({ ip: d.endpointAddress, port: d.config.securePort, store: () => d.store(), kubernetesServiceWritten: d.kubernetesServiceWritten }),
  },
  { name: 'validatingadmissionpolicy-status-controller', create: () => new ValidatingAdmissionPolicyStatusController() },
  // The Available condition of the APIServices an extension server backs (kube-aggregator's remote availability controller).
  {
    name: 'apiservice-status-remote-available-controller',
    create: (d) => new APIServiceAvailabilityController({ resolver: serviceResolver(d.config.enableAggregatorRouting), client: loadProxyClientCertificate(d.config) }),
  },
  // The local APIServices of the custom resources' group versions (kube-apiserver's crdregistration controller).
  { name: 'crd-registration-controller', create: () => new CRDRegistrationController() },
  { name: 'priority-and-fairness-config-consumer', enabled: (d) => d.config.enablePriorityAndFairness, create: (d) => new FlowSchemaStatusController(d.flowConfigurationReads) },
  // Several servers on one store: each publishes its identity Lease (with its peer address when
  // the mixed-version proxy is on), and the expired ones of servers gone are collected.
  {
    name: 'start-kube-apiserver-identity-lease-controller',
    enabled: (d) => gate(d, 'APIServerIdentity'),
    create: (d) => new ApiserverIdentityLeaseController({ identity: d.identity, advertisePeerAddress: gate(d, 'UnknownVersionInteroperabilityProxy') }),
  },
  { name: 'start-kube-apiserver-identity-lease-garbage-collector', enabled: (d) => gate(d, 'APIServerIdentity'), create: () => new ApiserverLeaseGC() },
  { name: 'peer-endpoint-reconciler-controller', enabled: (d) => gate(d, 'UnknownVersionInteroperabilityProxy'), create: (d) => new PeerEndpointReconciler(d.identity, () => d.store()) },
  { name: 'peer-discovery-cache-sync', enabled: (d) => d.peerDiscovery !== undefined, create: (d) => new PeerDiscoverySync(d.peerDiscovery!) },
  {
    name: 'start-kube-apiserver-coordinated-leader-election-controller',
    enabled: (d) => gate(d, COORDINATED_LEADER_ELECTION_GATE),
    create: (d) => new CoordinatedLeaderElectionController(d.config.coordinatedLeadership, d.identity.hostname),
  },
]

const KCM_NAMES = new Set(KCM_CONTROLLER_NAMES)

/** Whether an entry is one of kube-controller-manager's (by its name or the name's old alias). */
export const isKcmController = (entry: ControllerEntry): boolean => KCM_NAMES.has(canonicalControllerName(entry.name))

/**
 * The enabled controllers of the table, built. A whole cluster adds the clusterOnly entries:
 * kube-controller-manager's (named as its --controllers names them) when `--controllers`
 * enables them, the others (components of their own, such as the scheduler) always; with
 * `--leader-elect`, kube-controller-manager's run under its Lease, as one group.
 */
export function buildControllers(deps: ControllerDeps, table: readonly ControllerEntry[] = CONTROLLERS): Controller[] {
  const on = (entry: ControllerEntry) => entry.enabled?.(deps) ?? true
  if (deps.cluster !== true) return table.filter((entry) => !entry.clusterOnly && on(entry)).map((entry) => entry.create(deps))
  const cluster = deps.config.cluster
  const selected = (entry: ControllerEntry) => !isKcmController(entry) || isControllerEnabled(entry.name, cluster?.controllers ?? ['*'])
  const chosen = table.filter((entry) => on(entry) && (!entry.clusterOnly || selected(entry)))
  if (cluster?.leaderElect !== true) return chosen.map((entry) => entry.create(deps))
  const elected = chosen.filter((entry) => entry.clusterOnly && isKcmController(entry)).map((entry) => entry.create(deps))
  const rest = chosen.filter((entry) => !(entry.clusterOnly && isKcmController(entry))).map((entry) => entry.create(deps))
  return [...rest, new LeaderElectedControllers({ name: 'kube-controller-manager', lease: { namespace: 'kube-system', name: 'kube-controller-manager' } }, elected)]
}
