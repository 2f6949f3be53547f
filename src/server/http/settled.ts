/**
 * Work to do once a response is over: when it has finished, or its connection went away
 * first. Several links of the chain need this for every request (metrics, the wait group,
 * flow control, the timeout); each used to add its own pair of listeners. Here a response
 * gets one pair, and the callbacks run in the order they were added.
 */
import type { Response } from './types.js'

const CALLBACKS = Symbol('settled callbacks')

/** `finished`: the response was sent in full (false: the connection closed first). */
type Settled = (finished: boolean) => void

interface Tracked {
  [CALLBACKS]?: Settled[] | 'finished' | 'closed'
}

/** Calls `done` once, when the response has finished or the connection went away (at once if that already happened). */
export function onSettled(res: Response, done: Settled): void {
  const tracked = res as Response & Tracked
  const state = tracked[CALLBACKS]
  if (state === 'finished' || state === 'closed') {
    done(state === 'finished')
    return
  }
  if (state) {
    state.push(done)
    return
  }
  tracked[CALLBACKS] = [done]
  // Plain listeners shared by every response (an emitter calls them with the response as
  // `this`), not two `once` wrappers and two closures per request; they stay on the response
  // after it settled and do nothing then.
  res.on('finish', settleFinished)
  res.on('close', settleClosed)
}

function settleFinished(this: Response): void {
  settle(this as Response & Tracked, true)
}

function settleClosed(this: Response): void {
  settle(this as Response & Tracked, false)
}

function settle(tracked: Response & Tracked, finished: boolean): void {
  const callbacks = tracked[CALLBACKS]
  if (!Array.isArray(callbacks)) return
  tracked[CALLBACKS] = finished ? 'finished' : 'closed'
  for (const callback of callbacks) callback(finished)
}
