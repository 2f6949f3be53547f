/**
 * The admission plugins by name (the reference's admission.Plugins): each plugin registers a
 * factory under its name (register.ts lists them), and the enabled names in order become a
 * chain. A factory gets what the reference's plugin initializers hand plugins (the stores and
 * informers to read, the server's configuration, the log) and its own configuration.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { Authorizer } from '../authorization/authorizer.js'
import type { ServerConfig } from '../config.js'
import type { Store } from '../store/types.js'
import { AdmissionChain } from './chain.js'
import type { AdmissionPlugin } from './interfaces.js'
import type { AdmissionMetrics } from './metrics.js'

/** What plugins read other objects from: the registry over the open store. */
export interface AdmissionStores {
  readonly store: Store
  lookup(group: string, version: string, resource: string): GenericStore | undefined
  /** Every built-in store (the webhooks' equivalent resources); absent in plugin tests. */
  all?(): GenericStore[]
  /** The stores of every served version of every established CRD; absent in plugin tests. */
  customStores?(): Promise<GenericStore[]>
}

/** What every plugin's factory is given (the reference's plugin initializers). */
export interface PluginInitialization {
  /**
   * The registry over the open store, undefined until it is made (it is made after the chain
   * it carries, and again if the store is): read it per request, never keep it.
   */
  stores(): AdmissionStores | undefined
  /** The server's configuration; an option absent here has its default. */
  config: Readonly<Partial<ServerConfig>>
  log: (level: number, message: string) => void
  /**
   * The server's authorizer (the reference's WantsAuthorizer), for plugins that ask whether
   * the requester may do more than the request itself (approve or sign for a signer name);
   * absent where no server is assembled (tests of other plugins).
   */
  authorizer?: Authorizer
  /** The server's admission metrics (the reference's global admissionmetrics.Metrics); absent in plugin tests. */
  metrics?: AdmissionMetrics
}

/**
 * Makes a plugin. `pluginConfig` is its section of `--admission-control-config-file`
 * (undefined without one), as the reference's factories read their io.Reader.
 */
export type PluginFactory = (init: PluginInitialization, pluginConfig: unknown) => AdmissionPlugin

/**
 * A plugin whose factory refused to make it, its configuration most often (the reference's
 * InitPlugin error): the server does not start.
 */
export class PluginInitError extends Error {}

export class Plugins {
  private readonly factories = new Map<string, PluginFactory>()

  /** Registers a plugin's factory; a name registered twice is a programming error. */
  register(name: string, factory: PluginFactory): void {
    if (this.factories.has(name)) throw new Error(`Admission plugin ${JSON.stringify(name)} was registered twice`)
    this.factories.set(name, factory)
  }

  /** The registered names, sorted. */
  registered(): string[] {
    return [...this.factories.keys()].sort()
  }

  has(name: string): boolean {
    return this.factories.has(name)
  }

  /**
   * The chain of the named plugins, made in the order given (the enabled order); every name
   * must be registered.
   */
  newFromPlugins(names: readonly string[], init: PluginInitialization, configFor: (name: string) => unknown = () => undefined): AdmissionChain {
    const plugins = names.map((name) => {
      const factory = this.factories.get(name)
      if (!factory) throw new Error(`unknown admission plugin: ${name}`)
      const pluginConfig = configFor(name)
      try {
        return { name, plugin: factory(init, pluginConfig) }
      } catch (err) {
        throw new PluginInitError(`couldn't init admission plugin ${JSON.stringify(name)}: ${(err as Error).message}`, { cause: err })
      }
    })
    return new AdmissionChain(plugins, init.metrics)
  }
}
