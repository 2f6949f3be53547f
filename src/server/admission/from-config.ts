/**
 * The admission chain of the server's configuration (the reference's AdmissionOptions.ApplyTo):
 * the enabled plugins that this server has, in order. When the command line names admission
 * plugins, the enabled ones it does not have yet are named once at start-up.
 */
import type { Authorizer } from '../authorization/authorizer.js'
import type { ServerConfig } from '../config.js'
import type { AdmissionChain } from './chain.js'
import { enabledPluginNames } from './enabled-plugins.js'
import type { AdmissionStores, Plugins } from './plugins.js'
import { allAdmissionPlugins } from './register.js'

export interface AdmissionDeps {
  config: Readonly<Partial<ServerConfig>>
  /** The registry over the open store, once made (see PluginInitialization.stores). */
  stores(): AdmissionStores | undefined
  log: { v(level: number, message: string): void; warning(message: string): void }
  /** The server's authorizer, for the plugins that authorize more than the request. */
  authorizer?: Authorizer
}

export function admissionFromConfig(deps: AdmissionDeps, plugins: Plugins = allAdmissionPlugins()): AdmissionChain {
  const { config, log } = deps
  const options = config.admissionPlugins ?? { enable: [], disable: [], given: false }
  const enabled = enabledPluginNames(options)
  const notBuilt = enabled.filter((name) => !plugins.has(name))
  if (options.given && notBuilt.length > 0) log.warning(`these admission plugins are enabled but not in effect yet: ${notBuilt.join(', ')}`)
  const chain = plugins.newFromPlugins(
    enabled.filter((name) => plugins.has(name)),
    { stores: deps.stores, config, log: (level, message) => log.v(level, message), ...(deps.authorizer ? { authorizer: deps.authorizer } : {}) },
  )
  if (chain.mutatingNames.length > 0) log.v(1, `Loaded ${chain.mutatingNames.length} mutating admission controller(s) successfully in the following order: ${chain.mutatingNames.join(',')}.`)
  if (chain.validatingNames.length > 0) log.v(1, `Loaded ${chain.validatingNames.length} validating admission controller(s) successfully in the following order: ${chain.validatingNames.join(',')}.`)
  return chain
}
