/**
 * The table of controllers the server runs, as kube-controller-manager's table of
 * initialisers: one line per controller, in start order. A controller is one file in this
 * room implementing Controller (controller.ts); adding one is that file plus one line here.
 */
import type { ServerConfig } from '../config.js'
import type { Controller } from './controller.js'
import { CRDFinalizer } from './crd-finalizer.js'
import { CRDNamingController } from './crd-naming.js'
import { GarbageCollector } from './garbage-collector.js'
import { NamespaceController } from './namespace-controller.js'
import { PodGraceReaper } from './pod-grace-reaper.js'
import { ServiceAccountsController } from './service-accounts.js'

/** What the server hands the table when it builds the controllers. */
export interface ControllerDeps {
  readonly config: ServerConfig
}

export interface ControllerEntry {
  readonly name: string
  /** Off when the configuration turns it off (the reference's `--controllers` and per-controller options). */
  enabled?(deps: ControllerDeps): boolean
  create(deps: ControllerDeps): Controller
}

export const CONTROLLERS: readonly ControllerEntry[] = [
  { name: 'serviceaccount-controller', create: () => new ServiceAccountsController() },
  { name: 'crd_finalizer', create: () => new CRDFinalizer() },
  { name: 'namespace-controller', create: () => new NamespaceController() },
  { name: 'pod-grace-reaper', create: () => new PodGraceReaper() },
  { name: 'garbage-collector-controller', enabled: ({ config }) => config.enableGarbageCollector, create: () => new GarbageCollector() },
  { name: 'crd_naming_condition_controller', create: () => new CRDNamingController() },
]

/** The enabled controllers of the table, built. */
export function buildControllers(deps: ControllerDeps, table: readonly ControllerEntry[] = CONTROLLERS): Controller[] {
  return table.filter((entry) => entry.enabled?.(deps) ?? true).map((entry) => entry.create(deps))
}
