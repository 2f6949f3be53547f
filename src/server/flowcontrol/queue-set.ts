/**
 * The seats and queues of one priority level, after the reference's fair-queuing QueueSet
 * (fairqueuing/queueset): a request that fits under the level's current concurrency limit runs
 * at once; otherwise a `Queue` level shuffle-shards it onto the least loaded queue of its
 * flow's hand (refused with `queue-full` when that queue is at queueLengthLimit), a `Reject`
 * level refuses it (`concurrency-limit`), and the exempt level never limits. Queued requests
 * are dispatched by start-time fair queuing: each request's virtual start is the later of the
 * level's virtual time and the virtual finish of the previous request of its queue, and the
 * waiting request with the earliest start goes first, so a flow that sends more waits more.
 * A request that waits past its wait limit is refused (`time-out`); one whose client goes away
 * while waiting is `cancelled`.
 */
import { dealHand, hashFlowID } from './shuffle-sharding.js'
import { EntryList } from './entry-list.js'

/** Flows repeat: their hashes are remembered (bounded: emptied when the map grows past the limit). */
const flowHashes = new Map<string, bigint>()
const FLOW_HASHES_LIMIT = 4096
function flowHash(flowSchema: string, distinguisher: string): bigint {
  const key = `${flowSchema}\u0000${distinguisher}`
  let hash = flowHashes.get(key)
  if (hash === undefined) {
    if (flowHashes.size >= FLOW_HASHES_LIMIT) flowHashes.clear()
    flowHashes.set(key, (hash = hashFlowID(flowSchema, distinguisher)))
  }
  return hash
}

/** The reference estimates 3 ms of service per seat when it orders queued work. */
const ESTIMATED_SERVICE_SECONDS = 0.003

export interface QueuingConfig {
  queues: number
  handSize: number
  queueLengthLimit: number
}

/** What is known of a request when it asks for a seat (also what the debug dump shows). */
export interface RequestMeta {
  flowSchema: string
  distinguisher: string
  seats: number
  userName: string
  verb: string
  path: string
  namespace: string
  name: string
  apiGroup: string
  apiVersion: string
  resource: string
  subresource: string
}

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled'

export type Outcome = { execute: true; finish: () => void } | { execute: false; reason: RejectReason }

export interface Entry {
  meta: RequestMeta
  counters: FlowCounters
  arrivedAt: number
  /** Arrival order: among equal virtual starts, the earlier arrival goes first. */
  seq: number
  startedAt?: number
  queue?: Queue
  /** Virtual start and finish, in seat-seconds. */
  startR: number
  finishR: number
  settle?: (outcome: Outcome) => void
  /** Links of the executing list the entry is in (entry-list.ts). */
  prev?: Entry
  next?: Entry
  listed?: boolean
}

export interface Queue {
  index: number
  waiting: Entry[]
  executing: EntryList<Entry>
  seatsInUse: number
  /** The virtual finish of the last request given to this queue. */
  lastFinishR: number
}

/** What a level did per FlowSchema, for the metrics (one object per level and schema, updated in place). */
export interface FlowCounters {
  waiting: number
  executing: number
  executingSeats: number
  dispatched: number
  rejected: Map<RejectReason, number>
}

/** Time-weighted statistics of the seats a level is asked for, for borrowing. */
class SeatDemandIntegrator {
  private since: number
  private last: number
  private value = 0
  private sum = 0
  private sumSquares = 0
  private max = 0

  constructor(private readonly now: () => number) {
    this.since = this.last = now()
  }

  set(value: number): void {
    const t = this.now()
    const dt = (t - this.last) / 1000
    this.sum += this.value * dt
    this.sumSquares += this.value * this.value * dt
    this.last = t
    this.value = value
    this.max = Math.max(this.max, value)
  }

  reset(): { average: number; deviation: number; max: number; durationMs: number } {
    this.set(this.value)
    const durationMs = this.last - this.since
    const seconds = durationMs / 1000
    const average = seconds > 0 ? this.sum / seconds : 0
    const variance = seconds > 0 ? this.sumSquares / seconds - average * average : 0
    const result = { average, deviation: Math.sqrt(Math.max(0, variance)), max: this.max, durationMs }
    this.since = this.last
    this.sum = this.sumSquares = 0
    this.max = this.value
    return result
  }
}

function countRejection(counters: FlowCounters, reason: RejectReason): void {
  counters.rejected.set(reason, (counters.rejected.get(reason) ?? 0) + 1)
}

export class QueueSet {
  queues: Queue[] = []
  /** Executing requests that came through no queue (exempt and Reject levels). */
  readonly queueless = new EntryList<Entry>()
  concurrencyLimit = 0
  totals = { waiting: 0, executing: 0, seatsInUse: 0, seatsWaiting: 0, dispatched: 0, rejected: 0, timedout: 0, cancelled: 0 }
  private virtualTime = 0
  private enqueues = 0
  /** The hand each flow was dealt, for the current queues and hand size. */
  private hands = new Map<bigint, number[]>()
  private arrivals = 0
  readonly demand: SeatDemandIntegrator

  constructor(
    readonly name: string,
    /** undefined: no queues (Reject); null: exempt. */
    public queuing: QueuingConfig | undefined | null,
    /** The counters of a FlowSchema at this level (looked up once per request). */
    private readonly countersOf: (flowSchema: string) => FlowCounters,
    private readonly now: () => number = Date.now,
  ) {
    this.demand = new SeatDemandIntegrator(now)
    this.configure(queuing, 0)
  }

  get exempt(): boolean {
    return this.queuing === null
  }

  get idle(): boolean {
    return this.totals.waiting === 0 && this.totals.executing === 0
  }

  /** A new spec or limit. Queues are added as needed and dropped only once empty. */
  configure(queuing: QueuingConfig | undefined | null, concurrencyLimit: number): void {
    if (queuing?.queues !== this.queuing?.queues || queuing?.handSize !== this.queuing?.handSize) this.hands = new Map()
    this.queuing = queuing
    this.concurrencyLimit = concurrencyLimit
    const wanted = queuing ? queuing.queues : 0
    while (this.queues.length < wanted) this.queues.push({ index: this.queues.length, waiting: [], executing: new EntryList(), seatsInUse: 0, lastFinishR: this.virtualTime })
    while (this.queues.length > wanted && this.queues.at(-1)!.waiting.length === 0 && this.queues.at(-1)!.executing.size === 0) this.queues.pop()
    this.dispatchAsMuchAsPossible()
  }

  /** Runs the request now, or queues it (the promise settles when it runs or is refused). */
  start(meta: RequestMeta, waitLimitMs: number, onCancel: (cancel: () => void) => void): Outcome | Promise<Outcome> {
    const entry: Entry = { meta, counters: this.countersOf(meta.flowSchema), arrivedAt: this.now(), seq: this.arrivals++, startR: 0, finishR: 0, prev: undefined, next: undefined, listed: false }
    if (!this.queuing) {
      if (!this.canAccommodate(meta.seats)) return this.reject(entry, 'concurrency-limit')
      return this.execute(entry)
    }
    // The flow's hash is only needed to pick a queue (the reference hashes only with several queues).
    const queue = this.shuffleShard(this.queuing.queues > 1 ? flowHash(meta.flowSchema, meta.distinguisher) : 0n)
    if (this.totals.seatsInUse >= this.concurrencyLimit && queue.waiting.length >= this.queuing.queueLengthLimit) return this.reject(entry, 'queue-full')
    entry.queue = queue
    entry.startR = Math.max(this.virtualTime, queue.lastFinishR)
    entry.finishR = entry.startR + meta.seats * ESTIMATED_SERVICE_SECONDS
    queue.lastFinishR = entry.finishR
    // Nothing waits and a seat is free: the request would be dispatched at once, so it is (the
    // queue's virtual time still moves, which keeps the fair order of later queuing).
    if (this.totals.waiting === 0 && this.canAccommodate(meta.seats)) {
      this.virtualTime = Math.max(this.virtualTime, entry.startR)
      return this.execute(entry)
    }
    queue.waiting.push(entry)
    this.totals.waiting++
    this.totals.seatsWaiting += meta.seats
    entry.counters.waiting++
    this.noteDemand()
    let immediate: Outcome | undefined
    entry.settle = (o) => (immediate = o)
    this.dispatchAsMuchAsPossible()
    if (immediate) return immediate
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => this.leaveQueue(entry, 'time-out'), Math.max(0, waitLimitMs))
      entry.settle = (o) => {
        clearTimeout(timer)
        resolve(o)
      }
      onCancel(() => this.leaveQueue(entry, 'cancelled'))
    })
  }

  /** The seats the level could use right now: what runs plus what waits. */
  private noteDemand(): void {
    this.demand.set(this.totals.seatsInUse + this.totals.seatsWaiting)
  }

  private canAccommodate(seats: number): boolean {
    if (this.exempt) return true
    // A request wider than the whole limit runs alone, as in the reference.
    if (seats > this.concurrencyLimit) return this.totals.executing === 0
    return this.totals.seatsInUse + seats <= this.concurrencyLimit
  }

  /** The least loaded queue (by waiting work) of the flow's hand, visited from a rotating offset. */
  private shuffleShard(hashValue: bigint): Queue {
    const queuing = this.queuing!
    let hand = this.hands.get(hashValue)
    if (!hand) {
      if (this.hands.size >= FLOW_HASHES_LIMIT) this.hands.clear()
      this.hands.set(hashValue, (hand = dealHand(hashValue, queuing.queues, Math.min(queuing.handSize, queuing.queues))))
    }
    const offset = this.enqueues++ % hand.length
    let best: Queue | undefined
    let bestWork = Infinity
    for (let i = 0; i < hand.length; i++) {
      const queue = this.queues[hand[(offset + i) % hand.length]!]!
      const work = queue.waiting.reduce((sum, e) => sum + e.meta.seats, 0)
      if (work < bestWork) {
        bestWork = work
        best = queue
      }
    }
    return best!
  }

  private reject(entry: Entry, reason: RejectReason): Outcome {
    this.totals.rejected++
    countRejection(entry.counters, reason)
    return { execute: false, reason }
  }

  private execute(entry: Entry): Outcome {
    entry.startedAt = this.now()
    const seats = entry.meta.seats
    if (entry.queue) {
      entry.queue.executing.add(entry)
      entry.queue.seatsInUse += seats
    } else {
      this.queueless.add(entry)
    }
    this.totals.executing++
    this.totals.seatsInUse += seats
    this.totals.dispatched++
    const counters = entry.counters
    counters.dispatched++
    counters.executing++
    counters.executingSeats += seats
    this.noteDemand()
    let finished = false
    return {
      execute: true,
      finish: () => {
        if (finished) return
        finished = true
        if (entry.queue) {
          entry.queue.executing.delete(entry)
          entry.queue.seatsInUse -= seats
        } else {
          this.queueless.delete(entry)
        }
        this.totals.executing--
        this.totals.seatsInUse -= seats
        counters.executing--
        counters.executingSeats -= seats
        this.noteDemand()
        this.dispatchAsMuchAsPossible()
      },
    }
  }

  private removeWaiting(entry: Entry): boolean {
    const queue = entry.queue!
    const i = queue.waiting.indexOf(entry)
    if (i === -1) return false
    queue.waiting.splice(i, 1)
    this.totals.waiting--
    this.totals.seatsWaiting -= entry.meta.seats
    entry.counters.waiting--
    this.noteDemand()
    return true
  }

  private leaveQueue(entry: Entry, reason: 'time-out' | 'cancelled'): void {
    if (!this.removeWaiting(entry)) return
    if (reason === 'time-out') this.totals.timedout++
    else this.totals.cancelled++
    this.totals.rejected++
    countRejection(entry.counters, reason)
    entry.settle?.({ execute: false, reason })
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.totals.waiting > 0) {
      let next: Entry | undefined
      for (const queue of this.queues) {
        const head = queue.waiting[0]
        if (head && (!next || head.startR < next.startR || (head.startR === next.startR && head.seq < next.seq))) next = head
      }
      if (!next || !this.canAccommodate(next.meta.seats)) return
      this.removeWaiting(next)
      this.virtualTime = Math.max(this.virtualTime, next.startR)
      next.settle?.(this.execute(next))
    }
  }
}
