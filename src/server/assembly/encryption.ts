/**
 * Encryption at rest as `--encryption-provider-config` asks for it: the providers (reloaded
 * with `--encryption-provider-config-automatic-reload`) and the store wrapper that applies them.
 */
import { KINDS } from '../api/kinds/index.js'
import type { ServerConfig } from '../config.js'
import { EncryptionConfigError } from '../encryption/config.js'
import { EncryptingStore } from '../encryption/encrypting-store.js'
import { ProviderConfig } from '../encryption/provider-config.js'
import { storageGroups } from '../encryption/storage-groups.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { Logger } from '../log/logger.js'
import type { Store } from '../store/types.js'

export interface Encryption {
  /** The providers; undefined without `--encryption-provider-config`. */
  readonly providers?: ProviderConfig
  /** The store as the server uses it: encrypting when there are providers. */
  encrypting(store: Store): Store
}

export function encryptionFromConfig(config: ServerConfig, log: Logger): Encryption {
  let providers: ProviderConfig | undefined
  if (config.encryptionProviderConfig) {
    try {
      providers = new ProviderConfig(config.encryptionProviderConfig, config.encryptionProviderConfigAutomaticReload, log)
    } catch (err) {
      if (err instanceof EncryptionConfigError) throw new StartupError(err.message)
      throw err
    }
  }
  const encrypting = (store: Store): Store => {
    if (!providers) return store
    const provider = providers
    return new EncryptingStore(store, { prefix: config.storePrefix, config: () => provider.current(), storageGroupOf: storageGroups(KINDS) })
  }
  return { ...(providers ? { providers } : {}), encrypting }
}
