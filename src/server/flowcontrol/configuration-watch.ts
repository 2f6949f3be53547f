/**
 * What tells the flow-control configuration cache (flow-schemas.ts) that a FlowSchema or
 * a priority level changed: a store watch on both prefixes, as the reference's configuration
 * controller is driven by its informers, so the configuration is read again only after a change.
 */
import type { ConfigurationChanges } from './flow-schemas.js'
import type { Store } from '../store/types.js'

const PREFIXES = ['/flowschemas/', '/prioritylevelconfigurations/']

/** The changes of the stored configuration, through the store `currentStore` returns once open. */
export function configurationWatch(currentStore: () => Store | undefined): ConfigurationChanges {
  return async (changed, ended) => {
    const store = currentStore()
    if (!store) throw new Error('the store is not open yet')
    const opened = await Promise.allSettled(PREFIXES.map((prefix) => store.watch(prefix)))
    const watches = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))
    const stop = () => watches.forEach((w) => w.cancel())
    if (watches.length < opened.length) {
      stop()
      throw (opened.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason
    }
    // Either watch ending (an error, compaction, the store closing) ends both: one is opened again.
    let over = false
    for (const watch of watches) {
      void (async () => {
        try {
          for await (const _event of watch) changed()
        } catch {
          // Ended below.
        }
        if (over) return
        over = true
        stop()
        ended()
      })()
    }
  }
}
