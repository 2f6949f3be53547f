/**
 * The admission chain of the server's configuration (the reference's AdmissionOptions.ApplyTo):
 * the enabled plugins that this server has, in order, each with its section of
 * --admission-control-config-file. A file that cannot be read or decoded stops the start-up
 * with the reference's error. Every name the reference allows is a plugin here (a test in
 * test/server/admission/chain.test.ts keeps it so).
 */
import { AdmissionConfigError, admissionPluginConfig, readAdmissionConfiguration } from '../../core/config-files/admission-config.js'
import type { Authorizer } from '../authorization/authorizer.js'
import type { ServerConfig } from '../config.js'
import { StartupError } from '../lifecycle/startup-error.js'
import type { AdmissionChain } from './chain.js'
import { enabledPluginNames } from './enabled-plugins.js'
import type { AdmissionMetrics } from './metrics.js'
import { type AdmissionStores, PluginInitError, type Plugins } from './plugins.js'
import { allAdmissionPlugins } from './register.js'

export interface AdmissionDeps {
  config: Readonly<Partial<ServerConfig>>
  /** The registry over the open store, once made (see PluginInitialization.stores). */
  stores(): AdmissionStores | undefined
  log: { v(level: number, message: string): void; warning(message: string): void }
  /** The server's authorizer, for the plugins that authorize more than the request. */
  authorizer?: Authorizer
  /** The admission metrics on the server's /metrics registry. */
  metrics?: AdmissionMetrics
}

export function admissionFromConfig(deps: AdmissionDeps, plugins: Plugins = allAdmissionPlugins()): AdmissionChain {
  const { config, log } = deps
  const options = config.admissionPlugins ?? { enable: [], disable: [], given: false }
  const enabled = enabledPluginNames(options)
  const file = startupFailure(() => readAdmissionConfiguration(enabled, config.admissionControlConfigFile), 'failed to read plugin config: ')
  const chain = startupFailure(() =>
    plugins.newFromPlugins(
      enabled,
      { stores: deps.stores, config, log: (level, message) => log.v(level, message), ...(deps.authorizer ? { authorizer: deps.authorizer } : {}), ...(deps.metrics ? { metrics: deps.metrics } : {}) },
      (name) => admissionPluginConfig(file, name),
    ),
  )
  if (chain.mutatingNames.length > 0) log.v(1, `Loaded ${chain.mutatingNames.length} mutating admission controller(s) successfully in the following order: ${chain.mutatingNames.join(',')}.`)
  if (chain.validatingNames.length > 0) log.v(1, `Loaded ${chain.validatingNames.length} validating admission controller(s) successfully in the following order: ${chain.validatingNames.join(',')}.`)
  return chain
}

/**
 * Runs `build`; a configuration it cannot read or decode, or a plugin that refuses its own, is
 * a start-up failure with the reference's text (`prefix` is the wrapping the reference adds).
 */
function startupFailure<T>(build: () => T, prefix = ''): T {
  try {
    return build()
  } catch (err) {
    if (err instanceof AdmissionConfigError || err instanceof PluginInitError) throw new StartupError(`${prefix}${err.message}`, { cause: err })
    throw err
  }
}
