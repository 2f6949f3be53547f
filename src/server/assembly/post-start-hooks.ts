/**
 * The post-start hooks, as the reference registers them by name (AddPostStartHookOrDie): one
 * entry per hook, in the order of spec 2.1. Each hook's `poststarthook/<name>` check on /readyz
 * comes from this table (health.install places `apiservice-openapi-controller` after
 * `autoregister-completion`, as the reference lists it). Adding a hook is one entry here (and
 * its name in health's list of the spec's hooks).
 */
import type { Aggregator } from '../aggregator/index.js'
import type { Registry } from '../api/registry/registry.js'
import type { KubeObject } from '../api/registry/object.js'
import type { Authentication } from '../authentication/index.js'
import type { NodeGraph } from '../authorization/node.js'
import type { PolicyCache } from '../authorization/rbac-policy.js'
import { builtInApiServices, systemNamespaces, systemPriorityClasses, systemServiceAccounts } from '../bootstrap/cluster.js'
import { flowControlConfiguration } from '../api/bootstrap/flowcontrol.js'
import { bootstrapRbac } from '../bootstrap/rbac.js'
import { RESOURCES as RBAC_RESOURCES, reconcileRbac } from '../bootstrap/rbac-reconcile.js'
import type { ServerConfig } from '../config.js'
import type { ControllerManager } from '../controllers/manager.js'
import { defaultServiceCIDR } from '../api/kinds/service-ip-addresses.js'
import type { PostStartHook } from '../health/index.js'
import type { Logger } from '../log/logger.js'
import type { Store } from '../store/types.js'
import { defaultKeyPrefix } from '../store/overrides.js'
import type { ApiAccess } from './api.js'
import type { BootstrapWrites } from './bootstrap-writes.js'

/** What the hooks start or write. */
export interface PostStartHookParts {
  readonly config: ServerConfig
  readonly log: Logger
  /** The store once it is open. */
  readonly storeNow: () => Promise<Store>
  readonly api: ApiAccess
  readonly rbacPolicy: PolicyCache
  readonly nodeGraph: NodeGraph
  readonly controllers: ControllerManager
  /** Resolves true once /readyz first passed, false if shutdown came first (the controllers' context). */
  readonly ready: Promise<boolean>
  readonly writes: BootstrapWrites
  readonly authentication: Authentication
  /** The built-in group versions served, each with its APIService. */
  readonly apiGroupVersions: Parameters<typeof builtInApiServices>[0]
  /** The aggregation layer, which follows the APIServices once the store is open. */
  readonly aggregator?: Aggregator
}

export interface PostStartHookEntry {
  readonly name: string
  /** A hook the reference registers only with this feature gate on. */
  readonly featureGate?: string
  run(parts: PostStartHookParts): Promise<void>
}

/**
 * The reference's gate of the `storage-readiness` hook (beta, off by default in 1.35, on in
 * 1.36). With it off, `generic-apiserver-start-informers` waits for the watch caches instead:
 * /readyz lists the checks 1.35 lists and still says ready only once the caches are filled.
 */
export const STORAGE_READINESS_GATE = 'WatchCacheInitializationPostStartHook'

/** A hook whose work here is done once the store is open (the reference's informers and controllers it has no counterpart of). */
const storeOpen = async (parts: PostStartHookParts): Promise<void> => {
  await parts.storeNow()
}

export const POST_START_HOOK_TABLE: readonly PostStartHookEntry[] = [
  { name: 'start-apiserver-admission-initializer', run: async () => {} },
  { name: 'generic-apiserver-start-informers', run: startInformers },
  { name: 'start-apiextensions-informers', run: storeOpen },
  { name: 'start-apiextensions-controllers', run: storeOpen },
  { name: 'crd-informer-synced', run: crdInformerSynced },
  { name: 'bootstrap-controller', run: bootstrapController },
  { name: 'rbac/bootstrap-roles', run: bootstrapRoles },
  { name: 'scheduling/bootstrap-system-priority-classes', run: async (parts) => void (await parts.writes.ensure(systemPriorityClasses())) },
  { name: 'start-cluster-authentication-info-controller', run: startClusterAuthenticationInfo },
  { name: 'storage-readiness', featureGate: STORAGE_READINESS_GATE, run: watchCachesFilled },
  { name: 'start-aggregator-informers', run: storeOpen },
  { name: 'apiservice-registration-controller', run: async (parts) => parts.aggregator?.follow(parts.api.registryFor(await parts.storeNow())) },
  { name: 'apiservice-status-available-controller', run: storeOpen },
  { name: 'apiserver-autoregistration', run: async (parts) => void (await parts.writes.ensure(builtInApiServices(parts.apiGroupVersions))) },
  { name: 'apiservice-openapi-controller', run: storeOpen },
]

/** The hooks of the table bound to the server's parts, by name (as health.install takes them). */
export function postStartHooks(parts: PostStartHookParts, table: readonly PostStartHookEntry[] = POST_START_HOOK_TABLE): Record<string, PostStartHook> {
  const on = table.filter((entry) => entry.featureGate === undefined || parts.config.featureGates.get(entry.featureGate) === true)
  return Object.fromEntries(on.map((entry) => [entry.name, () => entry.run(parts)]))
}

/**
 * Done once every watch cache holds its resource (the reference's StorageReadinessHook), or
 * after --storage-initialization-timeout, when the reference carries on (reads from storage).
 */
async function watchCachesFilled(parts: PostStartHookParts): Promise<void> {
  const cache = parts.api.registryFor(await parts.storeNow()).watchCache
  if (cache && !(await cache.whenFilled(parts.config.storageInitializationTimeoutMs))) {
    parts.log.warning('Deadline exceeded while waiting for storage readiness... ignoring')
  }
}

/** The RBAC (and node authorizer) informers, then the controllers (controllers/index.ts) over the registry. */
async function startInformers(parts: PostStartHookParts): Promise<void> {
  const { config, log } = parts
  const registry = parts.api.registryFor(await parts.storeNow())
  const modes = config.authorizationModes
  // Without the reference's storage-readiness hook, this one waits for the watch caches: ready
  // means the caches the server reads from are filled (reads before that go to the store).
  const cachesFilled = config.featureGates.get(STORAGE_READINESS_GATE) === true ? undefined : watchCachesFilled(parts)
  await Promise.all([
    parts.rbacPolicy.start(registry, (err) => log.v(2, `rbac informer: ${err.message}`)),
    modes.includes('Node') || config.authorizationConfig ? parts.nodeGraph.start(registry, (err) => log.v(2, `node authorizer informer: ${err.message}`)) : undefined,
  ])
  // The controllers start once the RBAC informers have: ClusterRole aggregation follows their cache.
  await parts.controllers.start({ registry, ready: parts.ready, log: (level, message) => log.v(level, message) })
  await cachesFilled
}

async function crdInformerSynced(parts: PostStartHookParts): Promise<void> {
  const store = await parts.storeNow()
  await store.list(defaultKeyPrefix('apiextensions.k8s.io', 'customresourcedefinitions'))
}

async function bootstrapController(parts: PostStartHookParts): Promise<void> {
  const { ensure, repairIPs } = parts.writes
  const registry: Registry = parts.api.registryFor(await parts.storeNow())
  // All at once, so that a first start can commit them in one group (one after the
  // other, each waited for the previous one's WAL sync): the system namespaces, their default
  // service accounts, the priority and fairness configuration (the reference's own
  // post-start hook is not in the spec's list) and, where the emulated version serves
  // them (1.33 and later), the default ServiceCIDR. None of these needs another first.
  await Promise.all([
    ensure(systemNamespaces()),
    ensure(systemServiceAccounts()),
    ensure(flowControlConfiguration()),
    registry.lookup('networking.k8s.io', 'v1', 'servicecidrs') ? ensure([defaultServiceCIDR(parts.config.serviceClusterIPRange.split(',').filter((c) => c !== ''))]) : undefined,
  ])
  await repairIPs(registry)
  // The `kubernetes` Service, its Endpoints and the master lease: once ready (BootstrapWrites.afterReadyWork).
}

async function bootstrapRoles(parts: PostStartHookParts): Promise<void> {
  const { rbacPolicy, writes } = parts
  const store = await parts.storeNow()
  const defaults = bootstrapRbac()
  // The namespaced defaults live in kube-system and kube-public, which the bootstrap controller creates.
  await writes.ensure(systemNamespaces())
  // On a restart (cluster-admin is there) the defaults are reconciled from the RBAC
  // informers' list (started by generic-apiserver-start-informers) instead of a read and
  // a decode of each. On a first start there is nothing to reconcile, and the creates do
  // not wait for the list (which would then take each of them as a watch event).
  const restart = Boolean(await store.get('/clusterroles/cluster-admin'))
  if (restart) await rbacPolicy.synced
  const cached = (o: KubeObject) => (restart ? rbacPolicy.stored(RBAC_RESOURCES[o.kind ?? ''] ?? '', o.metadata.namespace ?? '', o.metadata.name ?? '') : undefined)
  const updated = await reconcileRbac(parts.api.registryFor(store), defaults, cached)
  // A default the informers have seen exists: only the others are asked for.
  const created = await writes.ensure(defaults.filter((d) => !cached(d.object as KubeObject)))
  if (created + updated > 0) parts.log.v(2, `rbac/bootstrap-roles: created ${created} and reconciled ${updated} default roles and bindings`)
  // Done means in effect: the authorizer decides on the informers' copy, which a write reaches a
  // moment later. Ready before that, a store lost at once would leave e.g. system:public-info-viewer
  // unbound for as long as the store is away (anonymous /readyz answered 403).
  const written = defaults.map((d) => d.object as KubeObject)
  await rbacPolicy.whenStored(written.map((o) => ({ resource: RBAC_RESOURCES[o.kind ?? ''] ?? '', namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' })))
}

async function startClusterAuthenticationInfo(parts: PostStartHookParts): Promise<void> {
  const { log, writes } = parts
  // The reference's controller runs in the background (its first publication once ready, in
  // BootstrapWrites.afterReadyWork) and follows the CA files: a reloaded bundle is published again.
  for (const file of parts.authentication.caFiles) file.onChange(() => void writes.publishAuthenticationInfo().catch((err: Error) => log.error(`cluster authentication info: ${err.message}`)))
}
