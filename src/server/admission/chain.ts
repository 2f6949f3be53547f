/**
 * The admission chain (the reference's chainAdmissionHandler): `admit` runs every mutating
 * plugin that handles the operation, in order; `validate` then runs every validating one. The
 * store calls it through the one hook it knows (api/registry/admission-hook.ts).
 *
 * With metrics, each phase is timed as a step and each plugin call as a controller (the
 * reference's WithStepMetrics around the chain and WithControllerMetrics around each plugin);
 * a phase is observed when any plugin handles the operation, as the reference's handlers call
 * the chain only when its Handles says so.
 */
import type { AdmissionHook } from '../api/registry/admission-hook.js'
import type { AdmissionAttributes } from './attributes.js'
import { type AdmissionPlugin, type MutationInterface, type ValidationInterface, isMutation, isValidation } from './interfaces.js'
import { type AdmissionMetrics, type StepType, secondsSince } from './metrics.js'

export interface NamedPlugin {
  name: string
  plugin: AdmissionPlugin
}

interface Named<T> {
  name: string
  plugin: T
}

export class AdmissionChain implements AdmissionHook {
  private readonly mutating: Named<MutationInterface>[]
  private readonly validating: Named<ValidationInterface>[]
  /** The names of the mutating plugins, in order. */
  readonly mutatingNames: string[]
  /** The names of the validating plugins, in order. */
  readonly validatingNames: string[]

  constructor(
    private readonly plugins: readonly NamedPlugin[],
    private readonly metrics?: AdmissionMetrics,
  ) {
    this.mutating = plugins.filter((p): p is Named<MutationInterface> => isMutation(p.plugin))
    this.validating = plugins.filter((p): p is Named<ValidationInterface> => isValidation(p.plugin))
    this.mutatingNames = this.mutating.map((p) => p.name)
    this.validatingNames = this.validating.map((p) => p.name)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    if (!this.metrics) {
      for (const { plugin } of this.mutating) if (plugin.handles(attributes.operation)) await plugin.admit(attributes)
      return
    }
    await this.timed(attributes, 'admit', this.mutating, (plugin) => plugin.admit(attributes))
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (!this.metrics) {
      for (const { plugin } of this.validating) if (plugin.handles(attributes.operation)) await plugin.validate(attributes)
      return
    }
    await this.timed(attributes, 'validate', this.validating, (plugin) => plugin.validate(attributes))
  }

  /** One phase with its step and controller metrics. */
  private async timed<T extends AdmissionPlugin>(attributes: AdmissionAttributes, type: StepType, phase: Named<T>[], call: (plugin: T) => Promise<void>): Promise<void> {
    const metrics = this.metrics!
    const { operation } = attributes
    if (!this.plugins.some(({ plugin }) => plugin.handles(operation))) return
    const stepStart = performance.now()
    let rejected = true
    try {
      for (const { name, plugin } of phase) {
        if (!plugin.handles(operation)) continue
        const start = performance.now()
        let pluginRejected = true
        try {
          await call(plugin)
          pluginRejected = false
        } finally {
          metrics.observeController(name, secondsSince(start), pluginRejected, operation, type)
        }
      }
      rejected = false
    } finally {
      metrics.observeStep(secondsSince(stepStart), rejected, operation, type)
    }
  }

  /** Stops every plugin (the server's shutdown). */
  stop(): void {
    for (const { plugin } of this.plugins) plugin.stop?.()
  }
}
