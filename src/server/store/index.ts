import { defaultDataDir } from './data-dir.js'
import { EtcdStore, type EtcdStoreOptions } from './etcd-store.js'
import { defaultKeyPrefix, parseOverrides, type KeyPrefixFor } from './overrides.js'
import { RoutedStore, type OverrideBackend, type Route } from './routed-store.js'
import { SqliteStore } from './sqlite-store.js'
import type { Store } from './types.js'

export * from './errors.js'
export type * from './types.js'
export { defaultDataDir } from './data-dir.js'
export { EtcdStore, type EtcdStoreOptions } from './etcd-store.js'
export { SqliteStore, type SqliteStoreOptions } from './sqlite-store.js'
export { RoutedStore } from './routed-store.js'
export { parseOverrides, defaultKeyPrefix, type StoreOverride, type KeyPrefixFor } from './overrides.js'

export interface StoreConfig {
  /** Embedded store directory; default `defaultDataDir()`. Used when `servers` is empty. */
  dataDir?: string
  /** etcd client URLs; empty or absent: the embedded store. */
  servers?: readonly string[]
  /** etcd key prefix (the reference's `/registry`). */
  prefix: string
  caFile?: string
  certFile?: string
  keyFile?: string
  /** 0 disables periodic compaction. */
  compactionIntervalMs: number
  healthcheckTimeoutMs: number
  readycheckTimeoutMs: number
  /** How long start-up waits for etcd (the embedded store opens at once or fails). */
  initializationTimeoutMs: number
  /** `--store-servers-overrides` entries, `group/resource#url;url`. */
  overrides?: readonly string[]
  /** Deadline of each etcd request; default 15s. */
  requestTimeoutMs?: number
  /** Where a resource's keys live; default: the reference's layout. */
  keyPrefixFor?: KeyPrefixFor
  /** Failures of background work (compaction) that have no caller to report to. */
  onBackgroundError?: (err: unknown) => void
  /** Start-up's failed attempts to reach etcd servers, as EtcdStoreOptions.onConnectFailure paces them. */
  onConnectFailure?: (servers: readonly string[], err: unknown, attempt: number) => void
  /** `--lease-reuse-duration-seconds` for etcd TTL leases. */
  leaseReuseDurationSeconds?: number
}

/**
 * Opens the store a server runs on: the embedded SQLite store when no etcd servers are
 * given, etcd otherwise; with overrides, a router in front sending each overridden
 * resource to its own etcd servers. Fails with a typed error naming what is wrong.
 */
export async function openStore(config: StoreConfig): Promise<Store> {
  const overrides = parseOverrides(config.overrides ?? [])
  const etcdOptions = (servers: readonly string[], healthCheckName: string): EtcdStoreOptions => ({
    servers,
    prefix: config.prefix,
    ...(config.caFile ? { caFile: config.caFile } : {}),
    ...(config.certFile ? { certFile: config.certFile } : {}),
    ...(config.keyFile ? { keyFile: config.keyFile } : {}),
    ...(config.requestTimeoutMs ? { requestTimeoutMs: config.requestTimeoutMs } : {}),
    ...(config.onBackgroundError ? { onBackgroundError: config.onBackgroundError } : {}),
    ...(config.onConnectFailure ? { onConnectFailure: (err: unknown, attempt: number) => config.onConnectFailure!(servers, err, attempt) } : {}),
    healthcheckTimeoutMs: config.healthcheckTimeoutMs,
    readycheckTimeoutMs: config.readycheckTimeoutMs,
    compactionIntervalMs: config.compactionIntervalMs,
    initializationTimeoutMs: config.initializationTimeoutMs,
    healthCheckName,
    ...(config.leaseReuseDurationSeconds !== undefined ? { leaseReuseDurationSeconds: config.leaseReuseDurationSeconds } : {}),
  })

  const servers = config.servers?.filter(s => s.trim() !== '') ?? []
  const main: Store =
    servers.length === 0
      ? SqliteStore.open({
          dataDir: config.dataDir ?? defaultDataDir(),
          compactionIntervalMs: config.compactionIntervalMs,
          healthcheckTimeoutMs: config.healthcheckTimeoutMs,
          readycheckTimeoutMs: config.readycheckTimeoutMs,
          ...(config.onBackgroundError ? { onBackgroundError: config.onBackgroundError } : {}),
        })
      : await EtcdStore.open(etcdOptions(servers, 'store'))
  if (overrides.length === 0) return main

  // Overrides naming the same server set share one client, and one health check.
  const backends: OverrideBackend[] = []
  const bySet = new Map<string, Store>()
  const routes: Route[] = []
  const keyPrefixFor = config.keyPrefixFor ?? defaultKeyPrefix
  try {
    for (const override of overrides) {
      const id = override.servers.join(';')
      let store = bySet.get(id)
      if (!store) {
        const name = `store-override-${backends.length}`
        store = await EtcdStore.open(etcdOptions(override.servers, name))
        bySet.set(id, store)
        backends.push({ name, store })
      }
      routes.push({ keyPrefix: keyPrefixFor(override.group, override.resource), store })
    }
  } catch (err) {
    await Promise.allSettled([main.close(), ...backends.map(b => b.store.close())])
    throw err
  }
  return new RoutedStore(main, routes, backends)
}
