/**
 * Values that are ready now or later. The request path calls authenticators, authorizers and
 * checks that almost always answer at once; awaiting such an answer still costs a trip through
 * the microtask queue (and a promise) per step, so the hot path goes on synchronously when a
 * value is already there and only waits for a real promise.
 */
export type MaybePromise<T> = T | Promise<T>

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
}

/** `then(value, f)` is `f(value)` now when the value is there, else once it resolves. */
export function then<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(f) : f(value)
}
