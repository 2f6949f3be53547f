/**
 * The admission plugins this server has, by name (the reference's
 * RegisterAllAdmissionPlugins): one line per plugin. A plugin enabled but not registered here
 * is named at start-up as not in effect yet; its place in the order is in enabled-plugins.ts.
 */
import { LIMIT_RANGER, LimitRanger } from './limitranger/limitranger.js'
import { NAMESPACE_LIFECYCLE, NamespaceLifecycle } from './namespace-lifecycle.js'
import { Plugins } from './plugins.js'
import { SERVICE_ACCOUNT, ServiceAccount } from './serviceaccount.js'

export function registerAllAdmissionPlugins(plugins: Plugins): void {
  plugins.register(NAMESPACE_LIFECYCLE, (init) => new NamespaceLifecycle(init))
  plugins.register(LIMIT_RANGER, (init) => new LimitRanger(init))
  plugins.register(SERVICE_ACCOUNT, (init) => new ServiceAccount(init))
}

/** A registry holding every plugin of this server. */
export function allAdmissionPlugins(): Plugins {
  const plugins = new Plugins()
  registerAllAdmissionPlugins(plugins)
  return plugins
}
