/**
 * The encryption configuration a running server uses. With automatic reload the file is
 * watched: a changed file that loads replaces the configuration for every later read and
 * write; one that does not load is logged and the previous configuration stays, as the
 * reference's reload controller does.
 */
import { unwatchFile, watchFile } from 'node:fs'
import type { HealthCheck } from '../health/check.js'
import { type EncryptionConfig, loadEncryptionConfig } from './config.js'

/** How often the file is looked at (stat polling survives editors that replace the file). */
const POLL_MS = Number(process.env.CLIENT_ENCRYPTION_CONFIG_POLL_MS ?? '') || 1000

/** The reference's single health check of a reloading configuration (no KMS plugins here: it always passes). */
const RELOAD_HEALTH_CHECK = 'kms-providers'

interface ProviderConfigLog {
  info(message: string): void
  error(message: string): void
}

export class ProviderConfig {
  private config: EncryptionConfig
  private watching = false

  /** Loads the file now; throws EncryptionConfigError (a start-up error) when it cannot be used. */
  constructor(
    readonly file: string,
    readonly automaticReload: boolean,
    private readonly log: ProviderConfigLog,
  ) {
    this.config = loadEncryptionConfig(file)
  }

  current(): EncryptionConfig {
    return this.config
  }

  /** Starts watching the file when automatic reload is on. */
  start(): void {
    if (!this.automaticReload || this.watching) return
    this.watching = true
    watchFile(this.file, { interval: POLL_MS, persistent: false }, () => this.reload())
  }

  /** Loads the file again; keeps the current configuration when it does not load. */
  reload(): void {
    try {
      const next = loadEncryptionConfig(this.file)
      if (next.contentHash === this.config.contentHash) return
      this.config = next
      this.log.info(`loaded a new encryption provider configuration from ${this.file}`)
    } catch (err) {
      this.log.error(`reloading the encryption provider configuration from ${this.file} failed, the previous one stays in use: ${(err as Error).message}`)
    }
  }

  stop(): void {
    if (!this.watching) return
    this.watching = false
    unwatchFile(this.file)
  }

  /** /healthz and /readyz carry `kms-providers` when reloading, as the reference registers it. */
  healthChecks(): HealthCheck[] {
    return this.automaticReload ? [{ name: RELOAD_HEALTH_CHECK, check: () => Promise.resolve() }] : []
  }
}
