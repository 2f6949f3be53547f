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
import { tracing, withSpan } from '../tracing/spans.js'

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
    if (tracing()) return this.traced(attributes, 'admit', this.mutating, (plugin) => plugin.admit(attributes))
    if (!this.metrics) {
      for (const { plugin } of this.mutating) if (plugin.handles(attributes.operation)) await plugin.admit(attributes)
      return
    }
    await this.timed(attributes, 'admit', this.mutating, (plugin) => plugin.admit(attributes))
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (tracing()) return this.traced(attributes, 'validate', this.validating, (plugin) => plugin.validate(attributes))
    if (!this.metrics) {
      for (const { plugin } of this.validating) if (plugin.handles(attributes.operation)) await plugin.validate(attributes)
      return
    }
    await this.timed(attributes, 'validate', this.validating, (plugin) => plugin.validate(attributes))
  }

  /**
   * One phase with its step and controller metrics. One clock reading per plugin: a plugin's
   * time runs from the previous one's end (the plugins skipped between take no time).
   */
  private async timed<T extends AdmissionPlugin>(attributes: AdmissionAttributes, type: StepType, phase: Named<T>[], call: (plugin: T) => Promise<void>): Promise<void> {
    const { operation } = attributes
    if (!this.anyHandles(operation)) return
    const stepStart = performance.now()
    let last = stepStart
    let rejected = true
    try {
      for (const named of phase) {
        if (!named.plugin.handles(operation)) continue
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

  /**
   * A phase with tracing on: a span for the phase (`admission admit`, `admission validate`)
   * and one for each plugin that handles the operation (`admit <plugin>`, `validate <plugin>`),
   * the metrics observed as without.
   */
  private async traced<T extends AdmissionPlugin>(attributes: AdmissionAttributes, type: StepType, phase: Named<T>[], call: (plugin: T) => Promise<void>): Promise<void> {
    const { operation } = attributes
    if (!this.anyHandles(operation)) return
    const names = new Map<AdmissionPlugin, string>(phase.map((p) => [p.plugin, p.name]))
    const spanned = (plugin: T) => withSpan(`${type} ${names.get(plugin) ?? ''}`, { plugin: names.get(plugin) ?? '', operation }, () => call(plugin))
    await withSpan(`admission ${type}`, { operation, resource: attributes.resource?.resource ?? '' }, async () => {
      if (this.metrics) return this.timed(attributes, type, phase, spanned)
      for (const { plugin } of phase) if (plugin.handles(operation)) await spanned(plugin)
    })
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
