/**
 * The admission chain (the reference's chainAdmissionHandler): `admit` runs every mutating
 * plugin that handles the operation, in order; `validate` then runs every validating one. The
 * store calls it through the one hook it knows (api/registry/admission-hook.ts).
 */
import type { AdmissionHook } from '../api/registry/admission-hook.js'
import type { AdmissionAttributes } from './attributes.js'
import { type AdmissionPlugin, type MutationInterface, type ValidationInterface, isMutation, isValidation } from './interfaces.js'

export interface NamedPlugin {
  name: string
  plugin: AdmissionPlugin
}

export class AdmissionChain implements AdmissionHook {
  private readonly mutating: MutationInterface[]
  private readonly validating: ValidationInterface[]
  /** The names of the mutating plugins, in order. */
  readonly mutatingNames: string[]
  /** The names of the validating plugins, in order. */
  readonly validatingNames: string[]

  constructor(private readonly plugins: readonly NamedPlugin[]) {
    const mutating = plugins.filter((p) => isMutation(p.plugin))
    const validating = plugins.filter((p) => isValidation(p.plugin))
    this.mutating = mutating.map((p) => p.plugin as MutationInterface)
    this.validating = validating.map((p) => p.plugin as ValidationInterface)
    this.mutatingNames = mutating.map((p) => p.name)
    this.validatingNames = validating.map((p) => p.name)
  }

  async admit(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.mutating) {
      if (plugin.handles(attributes.operation)) await plugin.admit(attributes)
    }
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    for (const plugin of this.validating) {
      if (plugin.handles(attributes.operation)) await plugin.validate(attributes)
    }
  }

  /** Stops every plugin (the server's shutdown). */
  stop(): void {
    for (const { plugin } of this.plugins) plugin.stop?.()
  }
}
