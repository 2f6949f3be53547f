/**
 * Who makes the API request being served, for the checks deep in a write that depend on it
 * (RBAC's escalation prevention) without threading the request through every store call:
 * the reference keeps the user in the request's context for the same reason.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { RequestInfo, UserInfo } from '../http/types.js'

export interface Requester {
  user: UserInfo
  info: RequestInfo
}

export const requester = new AsyncLocalStorage<Requester>()
