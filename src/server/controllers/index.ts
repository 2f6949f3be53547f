/**
 * The table of controllers the server runs, as kube-controller-manager's table of
 * initialisers: one line per controller, in start order. A controller is one file in this
 * room implementing Controller (controller.ts); adding one is that file plus one line here.
 */
import type { ServerConfig } from '../config.js'
import type { Controller } from './controller.js'

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

export const CONTROLLERS: readonly ControllerEntry[] = []

/** The enabled controllers of the table, built. */
export function buildControllers(deps: ControllerDeps, table: readonly ControllerEntry[] = CONTROLLERS): Controller[] {
  return table.filter((entry) => entry.enabled?.(deps) ?? true).map((entry) => entry.create(deps))
}
