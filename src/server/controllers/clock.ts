/**
 * Time as the cluster's controllers, scheduler and simulated nodes read it: the system's, or a
 * fake one (`client cluster start --clock`, and tests) so that CronJobs, heartbeats and TTLs can
 * be driven without waiting. Milliseconds since the epoch, as Date.now().
 */
export interface Clock {
  now(): number
  /**
   * The cluster's time of an instant the system clock stamped (the API server's
   * creationTimestamps): the same instant unless the cluster's clock runs apart from it.
   */
  fromSystem?(ms: number): number
}

/** `ms` of the system clock on `clock`. */
export function fromSystemTime(clock: Clock, ms: number): number {
  return clock.fromSystem ? clock.fromSystem(ms) : ms
}

export const SYSTEM_CLOCK: Clock = { now: () => Date.now() }

/** A clock that stands still until a test (or the fake-clock option) moves it. */
export class FakeClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current
  }
  set(ms: number): void {
    this.current = ms
  }
  advance(ms: number): void {
    this.current += ms
  }
}

/** A clock that starts at a given time and runs at the real pace (`cluster start --clock`). */
export function clockStartingAt(startMs: number, real: Clock = SYSTEM_CLOCK): Clock {
  const offset = startMs - real.now()
  return { now: () => real.now() + offset, fromSystem: (ms) => ms + offset }
}
