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
import type { AdmissionAttributes, AdmissionOperation } from './attributes.js'
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

/** A plugin of a phase that handles an operation, with its series for it ([accepted, rejected], found when first observed). */
interface Handler<T> extends Named<T> {
  readonly series: BoundSeries[]
}

/** What the chain runs for one operation, and the steps' series ([accepted, rejected]). */
interface Handling {
  readonly operation: AdmissionOperation
  readonly any: boolean
  readonly mutating: Handler<MutationInterface>[]
  readonly validating: Handler<ValidationInterface>[]
  readonly steps: Record<StepType, Array<{ histogram: BoundSeries; summary: BoundSeries }>>
  /** The phases for each resource (by API group, then resource), found when first asked. */
  readonly byResource: Map<string, Map<string, ResourceHandling>>
}

/** One phase's handlers for a resource: those that may act on it, and those that cannot (idle). */
interface Phase<T> {
  readonly acting: Handler<T>[]
  readonly idle: Handler<T>[]
}

/** The phases of an operation on one resource (AdmissionPlugin.actsOn). */
interface ResourceHandling {
  readonly mutating: Phase<MutationInterface>
  readonly validating: Phase<ValidationInterface>
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
    const handling = this.handling(attributes.operation)
    if (tracing()) return this.traced(handling, attributes, 'admit', handling.mutating, (plugin) => plugin.admit(attributes))
    const phase = this.forResource(handling, attributes).mutating
    if (!this.metrics) {
      for (const { plugin } of phase.acting) await plugin.admit(attributes)
      return
    }
    await this.timed(handling, 'admit', phase, (plugin) => plugin.admit(attributes))
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    const handling = this.handling(attributes.operation)
    if (tracing()) return this.traced(handling, attributes, 'validate', handling.validating, (plugin) => plugin.validate(attributes))
    const phase = this.forResource(handling, attributes).validating
    if (!this.metrics) {
      for (const { plugin } of phase.acting) await plugin.validate(attributes)
      return
    }
    await this.timed(handling, 'validate', phase, (plugin) => plugin.validate(attributes))
  }

  /**
   * The plugins of each phase that handle `operation`, with their metric series, found once per
   * operation: a plugin's Handles depends on the operation only, and asking ~20 plugins (and
   * finding their series) per request adds up.
   */
  private handling(operation: AdmissionOperation): Handling {
    let found = this.byOperation.get(operation)
    if (!found) {
      const handlers = <T extends AdmissionPlugin>(phase: Named<T>[]): Handler<T>[] => phase.filter((p) => p.plugin.handles(operation)).map((p) => ({ ...p, series: [] }))
      found = {
        operation,
        // The chain's Handles: whether any plugin handles the operation.
        any: this.plugins.some(({ plugin }) => plugin.handles(operation)),
        mutating: handlers(this.mutating),
        validating: handlers(this.validating),
        steps: { admit: [], validate: [] },
        byResource: new Map(),
      }
      this.byOperation.set(operation, found)
    }
    return found
  }

  /**
   * The operation's handlers split by whether they may act on the request's resource, found
   * once per resource: most plugins act on one or two kinds, and calling each of them (an
   * async call and its await) on every other request was most of the default chain's own cost.
   */
  private forResource(handling: Handling, attributes: AdmissionAttributes): ResourceHandling {
    const { group, resource } = attributes.resource
    let inGroup = handling.byResource.get(group)
    if (!inGroup) handling.byResource.set(group, (inGroup = new Map()))
    let found = inGroup.get(resource)
    if (!found) {
      const split = <T extends AdmissionPlugin>(handlers: Handler<T>[]): Phase<T> => {
        const acts = (handler: Handler<T>) => handler.plugin.actsOn?.(group, resource) ?? true
        return { acting: handlers.filter(acts), idle: handlers.filter((h) => !acts(h)) }
      }
      found = { mutating: split(handling.mutating), validating: split(handling.validating) }
      inGroup.set(resource, found)
    }
    return found
  }

  private readonly byOperation = new Map<string, Handling>()

  /**
   * One phase (its plugins that handle the operation) with its step and controller metrics.
   * One clock reading per plugin: a plugin's time runs from the previous one's end.
   */
  private async timed<T extends AdmissionPlugin>(handling: Handling, type: StepType, { acting, idle }: Phase<T>, call: (plugin: T) => Promise<void>): Promise<void> {
    if (!handling.any) return
    const { operation } = handling
    const stepStart = performance.now()
    let last = stepStart
    let rejected = true
    try {
      // A plugin that cannot act on the resource is observed as a call that did nothing and
      // took no time (its series count every request it handles, as the reference's).
      for (const handler of idle) (handler.series[0] ??= this.metrics!.controllerSeries(handler.name, type, operation, false)).observe(0)
      for (const handler of acting) {
        let pluginRejected = true
        try {
          await call(handler.plugin)
          pluginRejected = false
        } finally {
          const now = performance.now()
          const i = pluginRejected ? 1 : 0
          ;(handler.series[i] ??= this.metrics!.controllerSeries(handler.name, type, operation, pluginRejected)).observe((now - last) / 1000)
          last = now
        }
      }
      rejected = false
    } finally {
      const seconds = (last === stepStart ? performance.now() - stepStart : last - stepStart) / 1000
      const step = (handling.steps[type][rejected ? 1 : 0] ??= this.metrics!.stepSeries(type, operation, rejected))
      step.histogram.observe(seconds)
      step.summary.observe(seconds)
    }
  }

  /**
   * A phase with tracing on: a span for the phase (`admission admit`, `admission validate`)
   * and one for each plugin that handles the operation (`admit <plugin>`, `validate <plugin>`),
   * the metrics observed as without.
   */
  private async traced<T extends AdmissionPlugin>(handling: Handling, attributes: AdmissionAttributes, type: StepType, phase: Handler<T>[], call: (plugin: T) => Promise<void>): Promise<void> {
    if (!handling.any) return
    const { operation } = handling
    const names = new Map<AdmissionPlugin, string>(phase.map((p) => [p.plugin, p.name]))
    const spanned = (plugin: T) => withSpan(`${type} ${names.get(plugin) ?? ''}`, { plugin: names.get(plugin) ?? '', operation }, () => call(plugin))
    await withSpan(`admission ${type}`, { operation, resource: attributes.resource?.resource ?? '' }, async () => {
      if (this.metrics) return this.timed(handling, type, { acting: phase, idle: [] }, spanned)
      for (const { plugin } of phase) await spanned(plugin)
    })
  }

  /** Every plugin reads the stores again on the next request (AdmissionPlugin.forgetCachedReads). */
  forgetCachedReads(): void {
    for (const { plugin } of this.plugins) plugin.forgetCachedReads?.()
  }

  /** Stops every plugin (the server's shutdown). */
  stop(): void {
    for (const { plugin } of this.plugins) plugin.stop?.()
  }
}
