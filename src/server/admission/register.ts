/**
 * The admission plugins this server has, by name (the reference's
 * RegisterAllAdmissionPlugins): one line per plugin. A plugin enabled but not registered here
 * is named at start-up as not in effect yet; its place in the order is in enabled-plugins.ts.
 */
import { ALWAYS_ADMIT, AlwaysAdmit } from './always-admit.js'
import { ALWAYS_DENY, AlwaysDeny } from './always-deny.js'
import { ALWAYS_PULL_IMAGES, AlwaysPullImages } from './always-pull-images.js'
import { LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, LimitPodHardAntiAffinityTopology } from './anti-affinity.js'
import { DEFAULT_TOLERATION_SECONDS, DefaultTolerationSeconds } from './default-toleration-seconds.js'
import { DENY_SERVICE_EXTERNAL_IPS, DenyServiceExternalIPs } from './deny-service-external-ips.js'
import { EXTENDED_RESOURCE_TOLERATION, ExtendedResourceToleration } from './extended-resource-toleration.js'
import { NAMESPACE_AUTO_PROVISION, NamespaceAutoProvision } from './namespace-autoprovision.js'
import { NAMESPACE_EXISTS, NamespaceExists } from './namespace-exists.js'
import { NAMESPACE_LIFECYCLE, NamespaceLifecycle } from './namespace-lifecycle.js'
import { TAINT_NODES_BY_CONDITION, TaintNodesByCondition } from './node-taint.js'
import { Plugins } from './plugins.js'
import { POD_NODE_SELECTOR, PodNodeSelector } from './pod-node-selector.js'
import { POD_TOLERATION_RESTRICTION, PodTolerationRestriction } from './pod-toleration-restriction.js'

export function registerAllAdmissionPlugins(plugins: Plugins): void {
  plugins.register(NAMESPACE_LIFECYCLE, (init) => new NamespaceLifecycle(init))
  plugins.register(ALWAYS_ADMIT, (init) => new AlwaysAdmit(init))
  plugins.register(ALWAYS_DENY, (init) => new AlwaysDeny(init))
  plugins.register(ALWAYS_PULL_IMAGES, () => new AlwaysPullImages())
  plugins.register(NAMESPACE_AUTO_PROVISION, (init) => new NamespaceAutoProvision(init))
  plugins.register(NAMESPACE_EXISTS, (init) => new NamespaceExists(init))
  plugins.register(DEFAULT_TOLERATION_SECONDS, (init) => new DefaultTolerationSeconds(init))
  plugins.register(LIMIT_POD_HARD_ANTI_AFFINITY_TOPOLOGY, () => new LimitPodHardAntiAffinityTopology())
  plugins.register(EXTENDED_RESOURCE_TOLERATION, () => new ExtendedResourceToleration())
  plugins.register(TAINT_NODES_BY_CONDITION, () => new TaintNodesByCondition())
  plugins.register(DENY_SERVICE_EXTERNAL_IPS, () => new DenyServiceExternalIPs())
  plugins.register(POD_NODE_SELECTOR, (init, pluginConfig) => new PodNodeSelector(init, pluginConfig))
  plugins.register(POD_TOLERATION_RESTRICTION, (init, pluginConfig) => new PodTolerationRestriction(init, pluginConfig))
}

/** A registry holding every plugin of this server. */
export function allAdmissionPlugins(): Plugins {
  const plugins = new Plugins()
  registerAllAdmissionPlugins(plugins)
  return plugins
}
