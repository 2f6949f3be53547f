/**
 * Priority and fairness as the configuration asks for it: one controller for the filter, its
 * debug tables and its metrics, and the store's FlowSchemas and priority levels, re-read after
 * a change (their store watch) and told to whoever follows the reads (the FlowSchema status
 * writer, controllers/flowschema-status.ts).
 */
import type { StorageCodec } from '../api/registry/storage-codec.js'
import type { ServerConfig } from '../config.js'
import type { FlowConfiguration, FlowConfigurationReads } from '../controllers/flowschema-status.js'
import { type FlowConfigurationCache, type FlowObject, flowConfigurationCache } from '../flowcontrol/flow-schemas.js'
import { configurationWatch } from '../flowcontrol/configuration-watch.js'
import { FlowController } from '../flowcontrol/controller.js'
import { registerFlowControlMetrics } from '../flowcontrol/metrics.js'
import type { ServerMetrics } from '../paths/metrics.js'
import type { Store } from '../store/types.js'

/** The listeners of the configuration's reads. */
export class ConfigurationReads implements FlowConfigurationReads {
  private readonly listeners: Array<(configuration: FlowConfiguration, retry: () => void) => void> = []

  onRead(listener: (configuration: FlowConfiguration, retry: () => void) => void): void {
    this.listeners.push(listener)
  }

  tell(configuration: FlowConfiguration, retry: () => void): void {
    for (const listener of this.listeners) listener(configuration, retry)
  }
}

export interface FlowControl {
  /** Undefined with `--enable-priority-and-fairness=false` (max-in-flight limits requests then). */
  readonly controller?: FlowController
  readonly configuration: FlowConfigurationCache
}

export interface FlowControlParts {
  readonly config: ServerConfig
  readonly metrics: ServerMetrics
  readonly store: () => Store | undefined
  /** Decodes the stored objects (the storage media type). */
  readonly codec: StorageCodec
  readonly reads: ConfigurationReads
}

export function flowControlFromConfig(parts: FlowControlParts): FlowControl {
  const { config, reads } = parts
  // Priority and fairness: one controller for the filter, its debug tables and its metrics.
  const controller = config.enablePriorityAndFairness ? new FlowController({ serverConcurrencyLimit: config.maxRequestsInflight + config.maxMutatingRequestsInflight }) : undefined
  if (controller) registerFlowControlMetrics(parts.metrics.registry, controller)
  const configuration: FlowConfigurationCache = flowConfigurationCache(async () => {
    const store = parts.store()
    if (!store) throw new Error('the store is not open yet')
    const read = async (prefix: string) => (await store.list(prefix)).items.map((kv) => parts.codec.decode(kv.value) as unknown as FlowObject)
    const current = { schemas: await read('/flowschemas/'), levels: await read('/prioritylevelconfigurations/') }
    if (controller) reads.tell(current, () => configuration.invalidate())
    return current
  }, undefined, undefined, {
    changes: configurationWatch(parts.store),
    // A deleted level drains before it goes: the digest of a fresh read removes it once idle.
    poll: () => controller?.quiescing === true,
  })
  return { ...(controller ? { controller } : {}), configuration }
}
