/**
 * The controllers of the table that follow the registry, started over a registry a test made
 * (the server starts them in its post-start hook): the garbage collector when the registry's
 * options turn it on; the service-account controller too, since the ServiceAccount admission
 * plugin refuses a pod whose namespace has no `default` account (as a cluster without its
 * controller manager does).
 */
import type { Registry } from '../../../src/server/api/registry/registry.js'
import type { ServerConfig } from '../../../src/server/config.js'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../src/server/controllers/index.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'

export const REGISTRY_CONTROLLERS: readonly string[] = [
  'serviceaccount-controller',
  'crd_finalizer',
  'namespace-controller',
  'pod-grace-reaper',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'garbage-collector-controller',
  'crd_naming_condition_controller',
  'resourcequota-controller',
]

export async function startControllers(registry: Registry, names: readonly string[] = REGISTRY_CONTROLLERS): Promise<ControllerManager> {
  const config = { enableGarbageCollector: registry.options.garbageCollector === true } as ServerConfig
  const manager = new ControllerManager(
    buildControllers(
      // The registry's controllers take nothing but the configuration from the table's deps.
      { config } as ControllerDeps,
      CONTROLLERS.filter((entry) => names.includes(entry.name)),
    ),
  )
  await manager.start({ registry, ready: Promise.resolve(true), log: registry.log })
  return manager
}
