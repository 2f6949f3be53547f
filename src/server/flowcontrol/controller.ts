/**
 * The priority levels the filter dispatches to, digested from the FlowSchemas and
 * PriorityLevelConfigurations as the reference's APF configuration controller does
 * (apf_controller.go): each valid level gets a queue set whose limits are derived from the
 * server's concurrency limit and the levels' shares; the mandatory `exempt` and `catch-all`
 * objects are imagined when the store lacks them (and, before the store is open, the whole
 * default configuration is); a level deleted while busy drains before it goes (quiescing);
 * every 10 s the current limits are re-divided by recent seat demand (borrowing).
 */
import { flowControlConfiguration } from '../api/bootstrap/flowcontrol.js'
import { type FlowObject, type Classification, classify } from './flow-schemas.js'
import type { RequestContext } from '../http/types.js'
import {
  BORROWING_ADJUSTMENT_PERIOD_MS,
  type LevelLimits,
  type SeatDemandStats,
  currentLimits,
  nominalLimits,
  updateSeatDemand,
} from './concurrency-limits.js'
import { DroppedRequestsTracker } from './dropped-requests.js'
import { type FlowCounters, type QueuingConfig, QueueSet } from './queue-set.js'

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {})
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

export interface FlowConfiguration {
  schemas: FlowObject[]
  levels: FlowObject[]
}

export interface LevelState {
  name: string
  object: FlowObject
  exempt: boolean
  queueSet: QueueSet
  limits: LevelLimits
  demand: SeatDemandStats
  quiescing: boolean
}

export type { FlowCounters } from './queue-set.js'

/** The level's spec as the queue set reads it, or undefined when the spec is broken (ignored, as the reference does). */
function parseLevel(level: FlowObject): { exempt: boolean; shares: number; lendablePercent?: number; borrowingLimitPercent?: number; queuing: QueuingConfig | undefined | null } | undefined {
  const spec = obj(level.spec)
  const name = level.metadata.name ?? ''
  if (spec.type === 'Exempt') {
    // The reference copes with no level switching between exempt and not: only `exempt` may be.
    if (name !== 'exempt') return undefined
    const exempt = obj(spec.exempt)
    return { exempt: true, shares: int(exempt.nominalConcurrencyShares) ?? 0, lendablePercent: int(exempt.lendablePercent), queuing: null }
  }
  if (spec.type !== 'Limited' || name === 'exempt') return undefined
  const limited = obj(spec.limited)
  const response = obj(limited.limitResponse)
  let queuing: QueuingConfig | undefined
  if (response.type === 'Queue') {
    const q = obj(response.queuing)
    queuing = { queues: int(q.queues) ?? 64, handSize: int(q.handSize) ?? 8, queueLengthLimit: int(q.queueLengthLimit) ?? 50 }
    if (queuing.queues < 1 || queuing.handSize < 1 || queuing.handSize > queuing.queues) return undefined
  } else if (response.type !== 'Reject') {
    return undefined
  }
  return {
    exempt: false,
    shares: int(limited.nominalConcurrencyShares) ?? 30,
    lendablePercent: int(limited.lendablePercent),
    borrowingLimitPercent: int(limited.borrowingLimitPercent),
    queuing,
  }
}

const DEFAULTS = flowControlConfiguration().map((b) => b.object as unknown as FlowObject & { kind: string })
const defaultsOf = (kind: string, names?: string[]) => DEFAULTS.filter((o) => o.kind === kind && (!names || names.includes(o.metadata.name ?? '')))
const MANDATORY = ['exempt', 'catch-all']

export interface FlowControllerOptions {
  serverConcurrencyLimit: number
  now?: () => number
}

export class FlowController {
  readonly serverConcurrencyLimit: number
  readonly levels = new Map<string, LevelState>()
  /** By priority level, then FlowSchema. */
  readonly counters = new Map<string, Map<string, FlowCounters>>()
  readonly dropped: DroppedRequestsTracker
  private schemas: FlowObject[] = []
  private schemasByName = new Map<string, FlowObject>()
  private levelObjects: FlowObject[] = []
  private digested: FlowConfiguration | undefined | null = null
  private readonly now: () => number
  private timer: NodeJS.Timeout | undefined

  constructor(options: FlowControllerOptions) {
    this.serverConcurrencyLimit = options.serverConcurrencyLimit
    this.now = options.now ?? Date.now
    this.dropped = new DroppedRequestsTracker(this.now)
    this.digest(undefined)
  }

  /** Re-divides the seats by demand every adjustment period (the timer does not keep the process up). */
  startBorrowing(): void {
    this.timer ??= setInterval(() => this.adjustBorrowing(), BORROWING_ADJUSTMENT_PERIOD_MS).unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** True while a level no longer configured drains (a later digest removes it once idle). */
  get quiescing(): boolean {
    for (const state of this.levels.values()) if (state.quiescing) return true
    return false
  }

  /** Takes in a configuration read from the store (undefined: none yet). Cheap when unchanged. */
  digest(config: FlowConfiguration | undefined): void {
    if (config === this.digested) return
    this.digested = config
    const storedLevels = config ? config.levels : defaultsOf('PriorityLevelConfiguration')
    const storedSchemas = config ? config.schemas : defaultsOf('FlowSchema')
    const levels: FlowObject[] = []
    const parsed = new Map<string, NonNullable<ReturnType<typeof parseLevel>>>()
    for (const level of storedLevels) {
      const p = parseLevel(level)
      if (!p) continue
      parsed.set(level.metadata.name ?? '', p)
      levels.push(level)
    }
    for (const proto of defaultsOf('PriorityLevelConfiguration', MANDATORY)) {
      if (parsed.has(proto.metadata.name!)) continue
      parsed.set(proto.metadata.name!, parseLevel(proto)!)
      levels.push(proto)
    }
    // Levels no longer configured drain first; mandatory ones were imagined above.
    for (const [name, state] of this.levels) {
      if (parsed.has(name)) continue
      if (state.queueSet.idle) {
        this.levels.delete(name)
        continue
      }
      state.quiescing = true
      parsed.set(name, parseLevel(state.object)!)
      levels.push(state.object)
    }
    const limits = nominalLimits(
      this.serverConcurrencyLimit,
      levels.map((l) => {
        const p = parsed.get(l.metadata.name!)!
        return { name: l.metadata.name!, exempt: p.exempt, nominalConcurrencyShares: p.shares, lendablePercent: p.lendablePercent, borrowingLimitPercent: p.borrowingLimitPercent }
      }),
    )
    for (const level of levels) {
      const name = level.metadata.name!
      const p = parsed.get(name)!
      const l = limits.get(name)!
      let state = this.levels.get(name)
      if (!state) {
        state = {
          name,
          object: level,
          exempt: p.exempt,
          queueSet: new QueueSet(name, p.queuing, (schema) => this.counter(name, schema), this.now),
          limits: l,
          demand: { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 },
          quiescing: false,
        }
        state.queueSet.concurrencyLimit = l.initialCL
        this.levels.set(name, state)
      } else if (config?.levels.includes(level)) {
        state.quiescing = false
      }
      state.object = level
      state.exempt = p.exempt
      state.limits = l
      state.queueSet.queuing = p.queuing
    }
    this.levelObjects = levels.filter((l) => !this.levels.get(l.metadata.name!)?.quiescing)
    const schemaNames = new Set(storedSchemas.map((s) => s.metadata.name))
    this.schemas = [...storedSchemas, ...defaultsOf('FlowSchema', MANDATORY).filter((s) => !schemaNames.has(s.metadata.name))]
    this.schemasByName = new Map(this.schemas.map((s) => [s.metadata.name ?? '', s]))
    this.applyLimits(false)
  }

  /** The current limit of each level from its demand (with none yet: from its bounds). */
  private applyLimits(measure: boolean): void {
    const states = [...this.levels.values()]
    if (measure) for (const s of states) updateSeatDemand(s.demand, s.queueSet.demand.reset())
    const nominalSum = states.reduce((sum, s) => sum + s.limits.nominalCL, 0)
    const current = currentLimits(
      nominalSum,
      states.map((s) => ({ name: s.name, exempt: s.exempt, limits: s.limits, demand: s.demand, currentCL: s.queueSet.concurrencyLimit })),
    )
    for (const s of states) s.queueSet.configure(s.queueSet.queuing, current.get(s.name) ?? s.limits.nominalCL)
  }

  adjustBorrowing(): void {
    this.applyLimits(true)
  }

  /** The FlowSchema and level a request belongs to; the catch-all ones when nothing matches. */
  classify(ctx: RequestContext): Classification {
    const found = classify(this.schemas, this.levelObjects, ctx)
    if (found) return found
    const catchAll = this.levelObjects.find((l) => l.metadata.name === 'catch-all')
    return { schema: { name: 'catch-all', uid: '' }, level: { name: 'catch-all', uid: catchAll?.metadata.uid ?? '' } }
  }

  schemaNamed(name: string): FlowObject | undefined {
    return this.schemasByName.get(name)
  }

  level(name: string): LevelState {
    return this.levels.get(name) ?? this.levels.get('catch-all')!
  }

  counter(level: string, schema: string): FlowCounters {
    let bySchema = this.counters.get(level)
    if (!bySchema) this.counters.set(level, (bySchema = new Map()))
    let c = bySchema.get(schema)
    if (!c) bySchema.set(schema, (c = { waiting: 0, executing: 0, executingSeats: 0, dispatched: 0, rejected: new Map() }))
    return c
  }
}
