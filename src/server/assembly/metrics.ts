/**
 * The server's /metrics registry with the families registered at start-up, in their order:
 * the service-account tokens', then the store's object counts and database size.
 */
import { type ServiceAccountTokenEvents, serviceAccountMetrics } from '../authentication/service-account-metrics.js'
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import { ServerMetrics } from '../paths/metrics.js'
import { StorageMetrics } from '../storage-metrics.js'
import type { Store } from '../store/types.js'

/** The resources the server writes so far (the API issue replaces this with its registry). */
const BOOTSTRAP_RESOURCES: ReadonlyArray<[string, string]> = [
  ['namespaces', '/namespaces/'],
  ['clusterroles.rbac.authorization.k8s.io', '/clusterroles/'],
  ['clusterrolebindings.rbac.authorization.k8s.io', '/clusterrolebindings/'],
  ['priorityclasses.scheduling.k8s.io', '/priorityclasses/'],
  ['configmaps', '/configmaps/'],
  ['apiservices.apiregistration.k8s.io', '/apiservices/'],
]

export interface Metrics {
  readonly metrics: ServerMetrics
  readonly tokenEvents: ServiceAccountTokenEvents
  /** Polls the store once it is open (started after the server listens, stopped at shutdown). */
  readonly storageMetrics: StorageMetrics
}

export function serverMetrics(config: ServerConfig, store: () => Store | undefined, log: Logger): Metrics {
  const metrics = new ServerMetrics()
  const tokenEvents = serviceAccountMetrics(metrics.registry)
  const storageMetrics = new StorageMetrics({
    registry: metrics.registry,
    store,
    resources: () => BOOTSTRAP_RESOURCES,
    countPollMs: config.storeCountMetricPollMs,
    dbPollMs: config.storeDbMetricPollMs,
    onError: (err) => log.v(2, `storage metrics: ${(err as Error).message}`),
  })
  return { metrics, tokenEvents, storageMetrics }
}
