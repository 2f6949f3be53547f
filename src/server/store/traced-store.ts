/**
 * The store's calls as spans (the reference's etcd3 store opens `Create etcd3`,
 * `GuaranteedUpdate etcd3` ... around each call): `<Call> <backend>` with the key, for
 * create, get, update, delete, list and count, children of the request's spans. Only made
 * when tracing is on; the other calls go straight to the store.
 */
import { tracing, withSpan } from '../tracing/spans.js'
import type { Store } from './types.js'

const TRACED = { create: 'Create', get: 'Get', update: 'GuaranteedUpdate', delete: 'Delete', list: 'List', count: 'Count' } as const

/** `store` with its calls traced, or itself when tracing is off. */
export function tracedStore(store: Store, backend: 'etcd3' | 'sqlite'): Store {
  if (!tracing()) return store
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown
      if (typeof value !== 'function') return value
      const name = TRACED[property as keyof typeof TRACED]
      if (!name) return (value as (...a: unknown[]) => unknown).bind(target)
      return (key: string, ...rest: unknown[]) => withSpan(`${name} ${backend}`, { key }, () => (value as (...a: unknown[]) => Promise<unknown>).call(target, key, ...rest))
    },
  })
}
