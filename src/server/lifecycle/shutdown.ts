/**
 * Graceful termination, in the reference's order: on the first SIGTERM or SIGINT /readyz
 * fails at once while everything else is served for --shutdown-delay-duration; then the
 * server stops taking new requests (closing its listener, or with
 * --shutdown-send-retry-after answering them 429) while requests in flight drain and watches
 * get at most --shutdown-watch-termination-grace-period; then the store closes and the
 * process exits 0. A second signal exits at once with 1.
 */
import type { LifecycleSignals, WaitGroup } from './signals.js'

interface ShutdownSteps {
  signals: LifecycleSignals
  inFlight: WaitGroup
  watches: WaitGroup
  delayMs: number
  sendRetryAfter: boolean
  /** Upper bound for in-flight requests to finish (the reference uses --request-timeout). */
  drainTimeoutMs: number
  watchGracePeriodMs: number
  /** Stop accepting connections (close the listener). */
  stopListening(): Promise<void>
  /** Close idle connections and ask the others to close after their response. */
  closeIdleConnections(): void
  /** Cut every remaining connection. */
  destroyConnections(): void
  /** Release the store and other resources after requests have drained. */
  releaseResources(): Promise<void>
  log(message: string): void
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function within(promise: Promise<void>, ms: number): Promise<boolean> {
  if (ms <= 0) return promise.then(() => true)
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer))
}

/** Runs the termination sequence; resolves when the process may exit 0. */
export async function gracefulShutdown(steps: ShutdownSteps): Promise<void> {
  const { signals } = steps
  signals.shutdownInitiated.signal()
  steps.log(`shutdown initiated; /readyz now fails; serving for ${steps.delayMs}ms more`)
  // No pre-shutdown hooks are registered yet, so they stop at once.
  signals.preShutdownHooksStopped.signal()
  await sleep(steps.delayMs)
  signals.afterShutdownDelayDuration.signal()
  signals.notAcceptingNewRequest.signal()
  if (!steps.sendRetryAfter) {
    await steps.stopListening()
    steps.closeIdleConnections()
  }
  const drained = await within(steps.inFlight.wait(), steps.drainTimeoutMs)
  if (!drained) steps.log(`requests still in flight after ${steps.drainTimeoutMs}ms; closing them`)
  if (steps.watchGracePeriodMs > 0 && steps.watches.size > 0) {
    const watchesDone = await within(steps.watches.wait(), steps.watchGracePeriodMs)
    if (!watchesDone) steps.log(`${steps.watches.size} watches still open after the grace period; closing them`)
  }
  signals.inFlightRequestsDrained.signal()
  if (steps.sendRetryAfter) {
    // The reference stops the listener here with a 2 s timeout for what is left.
    const stopped = steps.stopListening()
    steps.closeIdleConnections()
    await within(stopped, 2000)
  }
  steps.destroyConnections()
  signals.httpServerStoppedListening.signal()
  await steps.releaseResources()
}
