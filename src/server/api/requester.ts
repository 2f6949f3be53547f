/**
 * Who makes the API request being served, for the checks deep in a write that depend on it
 * (RBAC's escalation prevention) without threading the request through every store call:
 * the reference keeps the user in the request's context for the same reason.
 *
 * Only requests to the RBAC group carry it. Node 20's AsyncLocalStorage, once it has run,
 * turns on async hooks for the whole process: every promise and every I/O callback of every
 * request then pays for context tracking (a fifth of a small GET's CPU in a profile), for the
 * benefit of a write check that only RBAC objects have. The storage is therefore entered only
 * for RBAC requests and disabled again (which turns the hooks off) when none is in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { RequestInfo, UserInfo } from '../http/types.js'

export interface Requester {
  user: UserInfo
  info: RequestInfo
}

/** The API group whose writes read the requester (rbac-escalation.ts). */
export const REQUESTER_GROUP = 'rbac.authorization.k8s.io'

const storage = new AsyncLocalStorage<Requester>()
let running = 0

/** The requester of the RBAC request being served, if any. */
export function currentRequester(): Requester | undefined {
  return running > 0 ? storage.getStore() : undefined
}

/** Runs `serve` with `who` as the requester when the request is one that reads it; else just runs it. */
export function withRequester(who: Requester | undefined, serve: () => void | Promise<void>): void | Promise<void> {
  // Not async itself: most requests get `serve`'s own promise, without one more wrapped around it.
  if (!who || who.info.apiGroup !== REQUESTER_GROUP) return serve()
  return serveAs(who, serve)
}

async function serveAs(who: Requester, serve: () => void | Promise<void>): Promise<void> {
  running++
  try {
    await storage.run(who, serve)
  } finally {
    if (--running === 0) storage.disable()
  }
}
