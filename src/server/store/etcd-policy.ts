import type { IOptions } from 'etcd3'
import { loadEtcd3 } from './etcd-client-module.js'
import { failedBeforeSending, HostBlockedError } from './etcd-errors.js'

type FaultHandling = NonNullable<IOptions['faultHandling']>
type Policy = NonNullable<FaultHandling['global']>
type PolicyFn = (context: { signal: AbortSignal }) => unknown

/**
 * Fault handling for the etcd3 client. Its default retries any "recoverable" failure three
 * times, a timeout included: a create whose response was lost would be sent again and come
 * back AlreadyExists although it succeeded. Here a call is only sent again, to another
 * member, when it demonstrably never left this process; everything else surfaces at once as
 * a retryable `UnavailableError` for the caller to decide. A member that just failed is
 * skipped for a moment so calls go to the healthy ones.
 */
export function faultHandling(hostCount: number, skipFailedHostMs = 1_000): FaultHandling {
  return {
    host: host => hostPolicy(host, hostCount > 1 ? skipFailedHostMs : 0),
    global: retryUnsentPolicy(hostCount),
  }
}

/**
 * The signal cockatiel's policy contract hands each attempt. etcd3's connection pool ignores
 * it and nothing here aborts an attempt, so one signal that never fires serves every call (an
 * AbortController per attempt, two per etcd call, cost several µs of each create).
 */
const NEVER_ABORTED = new AbortController().signal

function policy(execute: (fn: PolicyFn) => Promise<unknown>): Policy {
  // The connection pool only ever calls execute(); the rest of cockatiel's policy
  // interface (events, composition) is unused.
  return { execute } as unknown as Policy
}

function hostPolicy(host: string, skipMs: number): Policy {
  let skipUntil = 0
  return policy(async fn => {
    if (Date.now() < skipUntil) throw new HostBlockedError(host, skipUntil)
    try {
      return await fn({ signal: NEVER_ABORTED })
    } catch (err) {
      if (skipMs > 0 && err instanceof Error && loadEtcd3().isRecoverableError(err)) skipUntil = Date.now() + skipMs
      throw err
    }
  })
}

function retryUnsentPolicy(hostCount: number): Policy {
  return policy(async fn => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn({ signal: NEVER_ABORTED })
      } catch (err) {
        if (attempt >= hostCount || !failedBeforeSending(err)) throw err
      }
    }
  })
}
