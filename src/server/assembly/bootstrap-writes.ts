/**
 * The objects the server writes itself: the bootstrap objects the post-start hooks ensure,
 * kube-system/extension-apiserver-authentication, the IPAddresses of existing Services, and
 * what the reference's kubernetes-service and cluster-authentication-trust controllers write
 * once /readyz passes (bootstrap/after-ready.ts).
 */
import { StorageCodec } from '../api/registry/storage-codec.js'
import type { Registry } from '../api/registry/registry.js'
import type { Authentication } from '../authentication/index.js'
import { authenticationInfo } from '../bootstrap/cluster.js'
import { endpointAddress, kubernetesService } from '../bootstrap/kubernetes-service.js'
import { type BootstrapObject, ensureObjects } from '../bootstrap/objects.js'
import type { ServerConfig } from '../config.js'
import { repairServiceIPs } from '../api/kinds/service-ip-addresses.js'
import type { LifecycleSignals } from '../lifecycle/signals.js'
import type { Logger } from '../log/logger.js'
import type { Store } from '../store/types.js'
import type { ApiAccess } from './api.js'

export interface BootstrapWritesParts {
  readonly config: ServerConfig
  readonly log: Logger
  readonly signals: LifecycleSignals
  /** The store once it is open. */
  readonly storeNow: () => Promise<Store>
  readonly authentication: Authentication
  readonly api: ApiAccess
}

export class BootstrapWrites {
  /** Objects the server writes itself are stored in the storage media type too. */
  readonly codec: StorageCodec
  /** Resolves true once afterReadyWork has written the `kubernetes` Service, false if shutdown came first. */
  readonly kubernetesServiceWritten: Promise<boolean>
  private serviceWritten!: (written: boolean) => void

  constructor(private readonly parts: BootstrapWritesParts) {
    this.codec = new StorageCodec(parts.config.storageMediaType)
    this.kubernetesServiceWritten = new Promise((resolve) => (this.serviceWritten = resolve))
  }

  /** Creates those of the objects that do not exist; resolves to how many were created. */
  readonly ensure = async (objects: readonly BootstrapObject[]): Promise<number> => {
    const store = await this.parts.storeNow()
    await this.codec.ready()
    return ensureObjects(store, objects, (object) => this.codec.encode(object))
  }

  /** kube-system/extension-apiserver-authentication as the CA files say now (written by an earlier start: updated). */
  readonly publishAuthenticationInfo = async (): Promise<void> => {
    const { config, authentication } = this.parts
    const [info] = authenticationInfo(
      authentication.clientCa?.pem,
      authentication.requestHeaderCa && {
        caPem: authentication.requestHeaderCa.pem,
        allowedNames: config.requestheaderAllowedNames,
        usernameHeaders: config.requestheaderUsernameHeaders,
        uidHeaders: config.requestheaderUidHeaders,
        groupHeaders: config.requestheaderGroupHeaders,
        extraHeaderPrefixes: config.requestheaderExtraHeadersPrefix,
      },
    )
    if ((await this.ensure([info!])) > 0) return
    const store = await this.parts.storeNow()
    const current = await this.parts.api.read('', 'v1', 'configmaps', 'kube-system', 'extension-apiserver-authentication')
    const kv = await store.get(info!.key)
    if (!current || !kv || JSON.stringify(current.data ?? {}) === JSON.stringify(info!.object.data)) return
    const metadata = { ...(current.metadata as Record<string, unknown>) }
    delete metadata.resourceVersion
    await store.update(info!.key, this.codec.encode({ ...current, metadata, data: info!.object.data as Record<string, unknown> }), kv.modRevision)
  }

  /** The start-service-ip-repair-controllers' pass: IPAddresses for Services that have none. */
  readonly repairIPs = async (registry: Registry): Promise<void> => {
    const ipaddresses = registry.lookup('networking.k8s.io', 'v1', 'ipaddresses')
    if (!ipaddresses) return
    const repaired = await repairServiceIPs(registry.lookup('', 'v1', 'services')!, ipaddresses)
    if (repaired > 0) this.parts.log.v(2, `bootstrap-controller: wrote ${repaired} IPAddresses of existing Services`)
  }

  /**
   * What the reference's kubernetes-service and cluster-authentication-trust controllers write
   * once /readyz passes: the `kubernetes` Service, Endpoints and EndpointSlice (unchanged ones
   * are not written again), then (the lease endpoint reconciler starts) and
   * kube-system/extension-apiserver-authentication.
   */
  readonly afterReadyWork = async (): Promise<void> => {
    const { config, signals } = this.parts
    const created = await this.ensure(
      kubernetesService({
        address: endpointAddress(config.advertiseAddress, config.bindAddress),
        securePort: config.securePort,
        clusterIPRange: config.serviceClusterIPRange,
        nodePort: config.coreServiceNodePort,
        withEndpoints: config.endpointReconcilerType !== 'none',
      }),
    )
    const store = await this.parts.storeNow()
    const registry = this.parts.api.registryFor(store)
    // A Service written here has its IPAddress written as the repair pass would.
    if (created > 0) await this.repairIPs(registry)
    // --endpoint-reconciler-type=lease: the reconciler (a controller) starts now, unless shutting down.
    this.serviceWritten(!signals.shutdownInitiated.signalled)
    await this.publishAuthenticationInfo()
  }

  /** /readyz never passed (shutdown came first): the controllers waiting for the Service stop waiting. */
  notReady(): void {
    this.serviceWritten(false)
  }
}
