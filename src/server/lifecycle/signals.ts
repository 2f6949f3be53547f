/**
 * The server's lifecycle signals, in the reference's order. Each fires once; parts of the
 * server wait on the ones that concern them (the readiness check on ShutdownInitiated, the
 * retry-after filter on NotAcceptingNewRequest, the store checks on InFlightRequestsDrained).
 */
export class Signal {
  private fired = false
  private release!: () => void
  readonly done: Promise<void> = new Promise((resolve) => (this.release = resolve))

  constructor(readonly name: string) {}

  get signalled(): boolean {
    return this.fired
  }

  signal(): void {
    if (this.fired) return
    this.fired = true
    this.release()
  }
}

export class LifecycleSignals {
  readonly shutdownInitiated = new Signal('ShutdownInitiated')
  readonly afterShutdownDelayDuration = new Signal('AfterShutdownDelayDuration')
  readonly preShutdownHooksStopped = new Signal('PreShutdownHooksStopped')
  readonly notAcceptingNewRequest = new Signal('NotAcceptingNewRequest')
  readonly inFlightRequestsDrained = new Signal('InFlightRequestsDrained')
  readonly httpServerStoppedListening = new Signal('HTTPServerStoppedListening')
  /** Set the first time /readyz passes. */
  readonly hasBeenReady = new Signal('HasBeenReady')
}

/** Counts requests in flight and tells when the count falls to zero. */
export class WaitGroup {
  private count = 0
  private waiters: Array<() => void> = []

  get size(): number {
    return this.count
  }

  add(): void {
    this.count++
  }

  done(): void {
    this.count--
    if (this.count === 0) {
      for (const wake of this.waiters.splice(0)) wake()
    }
  }

  /** Resolves when nothing is in flight. */
  wait(): Promise<void> {
    if (this.count === 0) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }
}
