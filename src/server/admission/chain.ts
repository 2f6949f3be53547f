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
import type { AdmissionMetrics, BoundSeries, StepType } from './metrics.js'

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
    const phase = this.handling(attributes.operation).mutating
    if (!this.metrics) {
      for (const { plugin } of phase) await plugin.admit(attributes)
      return
    }
    await this.timed(attributes, 'admit', phase, (plugin) => plugin.admit(attributes))
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    const phase = this.handling(attributes.operation).validating
    if (!this.metrics) {
      for (const { plugin } of phase) await plugin.validate(attributes)
      return
    }
    await this.timed(attributes, 'validate', phase, (plugin) => plugin.validate(attributes))
  }

  /**
   * The plugins of each phase that handle `operation`, found once per operation: a plugin's
   * Handles depends on the operation only, and asking ~20 plugins per request adds up.
   */
  private handling(operation: AdmissionAttributes['operation']): { mutating: Named<MutationInterface>[]; validating: Named<ValidationInterface>[] } {
    let found = this.byOperation.get(operation)
    if (!found) {
      found = { mutating: this.mutating.filter((p) => p.plugin.handles(operation)), validating: this.validating.filter((p) => p.plugin.handles(operation)) }
      this.byOperation.set(operation, found)
    }
    return found
  }

  private readonly byOperation = new Map<string, { mutating: Named<MutationInterface>[]; validating: Named<ValidationInterface>[] }>()

  /**
   * One phase (its plugins that handle the operation) with its step and controller metrics.
   * One clock reading per plugin: a plugin's time runs from the previous one's end.
   */
  private async timed<T extends AdmissionPlugin>(attributes: AdmissionAttributes, type: StepType, phase: Named<T>[], call: (plugin: T) => Promise<void>): Promise<void> {
    const { operation } = attributes
    if (!this.anyHandles(operation)) return
    const stepStart = performance.now()
    let last = stepStart
    let rejected = true
    try {
      for (const named of phase) {
        let pluginRejected = true
        try {
          await call(named.plugin)
          pluginRejected = false
        } finally {
          const now = performance.now()
          this.boundFor(named, type, operation, pluginRejected).observe((now - last) / 1000)
          last = now
        }
      }
      rejected = false
    } finally {
      const seconds = (last === stepStart ? performance.now() - stepStart : last - stepStart) / 1000
      const step = this.stepFor(type, operation, rejected)
      step.histogram.observe(seconds)
      step.summary.observe(seconds)
    }
  }

  /** Whether any plugin handles the operation (the chain's Handles), per operation once. */
  private anyHandles(operation: AdmissionAttributes['operation']): boolean {
    let any = this.handlesByOperation.get(operation)
    if (any === undefined) this.handlesByOperation.set(operation, (any = this.plugins.some(({ plugin }) => plugin.handles(operation))))
    return any
  }

  private readonly handlesByOperation = new Map<string, boolean>()
  /** Each plugin's series by operation ([accepted, rejected]), and each step's: found once, as the chain observes per plugin per request. */
  private readonly controllerSeries = new WeakMap<object, Map<string, BoundSeries[]>>()
  private readonly stepSeries = new Map<string, Array<{ histogram: BoundSeries; summary: BoundSeries }>>()

  private boundFor(named: Named<AdmissionPlugin>, type: StepType, operation: string, rejected: boolean): BoundSeries {
    let byOperation = this.controllerSeries.get(named)
    if (!byOperation) this.controllerSeries.set(named, (byOperation = new Map()))
    let pair = byOperation.get(operation)
    if (!pair) byOperation.set(operation, (pair = []))
    const i = rejected ? 1 : 0
    return (pair[i] ??= this.metrics!.controllerSeries(named.name, type, operation, rejected))
  }

  private stepFor(type: StepType, operation: string, rejected: boolean): { histogram: BoundSeries; summary: BoundSeries } {
    const key = `${type} ${operation}`
    let pair = this.stepSeries.get(key)
    if (!pair) this.stepSeries.set(key, (pair = []))
    const i = rejected ? 1 : 0
    return (pair[i] ??= this.metrics!.stepSeries(type, operation, rejected))
  }

  /** Stops every plugin (the server's shutdown). */
  stop(): void {
    for (const { plugin } of this.plugins) plugin.stop?.()
  }
}
