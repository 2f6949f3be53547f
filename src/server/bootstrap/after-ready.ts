/**
 * Start-up work that the reference does only once the server is ready. Its kubernetes-service
 * controller (started by the `bootstrap-controller` post-start hook, which returns at once)
 * polls /readyz every 100 ms and only then writes the `kubernetes` Service, its Endpoints and
 * EndpointSlice and the master lease; the cluster-authentication-trust controller runs in the
 * background too. So /readyz never waits for those writes (and their disk syncs), here as there.
 */
import type { HealthCheck } from '../health/check.js'
import type { Signal } from '../lifecycle/signals.js'

/** The reference's poll interval for /readyz. */
const POLL_MS = 100

export interface AfterReadyOptions {
  /** Settles once every post-start hook has finished. */
  hooksDone: Promise<unknown>
  /** The checks of /readyz, evaluated as /readyz does. */
  readyChecks(): readonly HealthCheck[]
  /** Fired the first time /readyz answers 200. */
  hasBeenReady: Signal
  /** Fired when shutdown starts: work not started yet is not started. */
  shutdownInitiated: Signal
  pollMs?: number
}

/** Whether every check passes now (a check that answers at once is not run again). */
export async function passesNow(checks: readonly HealthCheck[]): Promise<boolean> {
  const results = await Promise.all(
    checks.map(async (check) => {
      const now = check.immediate?.()
      if (now !== undefined) return now === null
      try {
        await check.check()
        return true
      } catch {
        return false
      }
    }),
  )
  return results.every(Boolean)
}

/**
 * Resolves true once the server is ready (every /readyz check passes, or /readyz has answered
 * 200), false when shutdown starts first.
 */
export async function whenReady(options: AfterReadyOptions): Promise<boolean> {
  await options.hooksDone
  const pollMs = options.pollMs ?? POLL_MS
  for (;;) {
    if (options.shutdownInitiated.signalled) return false
    if (options.hasBeenReady.signalled || (await passesNow(options.readyChecks()))) return !options.shutdownInitiated.signalled
    let timer: NodeJS.Timeout | undefined
    await Promise.race([options.hasBeenReady.done, options.shutdownInitiated.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, pollMs)))])
    clearTimeout(timer)
  }
}
