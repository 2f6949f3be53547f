/**
 * The server's /metrics registry with the families registered at start-up, in their order:
 * the service-account tokens', then the store's object counts and database size.
 */
import { readFileSync } from 'node:fs'
import { loadYaml } from '../../core/util/yaml.js'
import { type ServiceAccountTokenEvents, serviceAccountMetrics } from '../authentication/service-account-metrics.js'
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import { ServerMetrics } from '../paths/metrics.js'
import type { MetricsPolicy } from '../paths/metrics-policy.js'
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

/**
 * The allow-list as the reference's Apply takes it: --allow-metric-labels when given, else the
 * manifest's map (validation has read it; an unreadable one is logged and ignored, as there).
 */
function allowLabels(config: ServerConfig, log: Logger): Record<string, string> {
  if (config.allowMetricLabels) return config.allowMetricLabels
  if (!config.allowMetricLabelsManifest) return {}
  try {
    const mapping = loadYaml(readFileSync(config.allowMetricLabelsManifest, 'utf8')) ?? {}
    return Object.fromEntries(Object.entries(mapping as Record<string, unknown>).map(([k, v]) => [k, String(v ?? '')]))
  } catch (err) {
    log.error(`Failed to read allow list manifest: ${(err as Error).message}`)
    return {}
  }
}

export function metricsPolicy(config: ServerConfig, log: Logger): MetricsPolicy {
  return { disabled: config.disabledMetrics, showHidden: config.showHiddenMetrics, allowLabels: allowLabels(config, log) }
}

export function serverMetrics(config: ServerConfig, store: () => Store | undefined, log: Logger): Metrics {
  const metrics = new ServerMetrics({ policy: metricsPolicy(config, log) })
  const tokenEvents = serviceAccountMetrics(metrics.registry)
  const storageMetrics = new StorageMetrics({
    registry: metrics.registry,
    store,
    resources: () => BOOTSTRAP_RESOURCES,
    countPollMs: config.storeCountMetricPollMs,
    dbPollMs: config.storeDbMetricPollMs,
    onError: (err) => log.v(2, `storage metrics: ${(err as Error).message}`),
  })
  // The reference's storage/etcd3/metrics: deprecated in 1.34 for apiserver_resource_objects.
  metrics.registry.deprecate('apiserver_storage_objects', '1.34.0')
  return { metrics, tokenEvents, storageMetrics }
}
