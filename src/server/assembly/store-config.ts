/**
 * The store's configuration from the server's: the embedded store's data directory, or the
 * etcd servers with their TLS files, per-resource overrides, compaction and probe timeouts.
 */
import type { ServerConfig } from '../config.js'
import type { Logger } from '../log/logger.js'
import type { StoreConfig } from '../store/index.js'

export function storeConfig(config: ServerConfig, log: Logger): StoreConfig {
  return {
    ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    servers: config.storeServers,
    prefix: config.storePrefix,
    ...(config.storeCaFile ? { caFile: config.storeCaFile } : {}),
    ...(config.storeCertFile ? { certFile: config.storeCertFile } : {}),
    ...(config.storeKeyFile ? { keyFile: config.storeKeyFile } : {}),
    compactionIntervalMs: config.storeCompactionIntervalMs,
    healthcheckTimeoutMs: config.storeHealthcheckTimeoutMs,
    readycheckTimeoutMs: config.storeReadycheckTimeoutMs,
    initializationTimeoutMs: config.storageInitializationTimeoutMs,
    overrides: config.storeServersOverrides,
    leaseReuseDurationSeconds: config.leaseReuseDurationSeconds,
    onBackgroundError: (err) => log.warning(`store background work failed: ${(err as Error).message}`),
    // A newcomer who forgot to start etcd sees why the server is not ready, at once.
    onConnectFailure: (servers, err, attempt) =>
      log.warning(
        `cannot reach the store at ${servers.join(',')} (attempt ${attempt}; retrying for up to --storage-initialization-timeout ${config.storageInitializationTimeoutMs / 1000}s): ${(err as Error).message}`,
      ),
  }
}
