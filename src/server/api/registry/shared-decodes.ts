/**
 * Store events decoded once for every watcher of a resource. The watch cache hands the same
 * store event to each of its watchers; without this each watcher decoded it again (a thousand
 * watchers, a thousand decodes of every change). Only for readers that never change what they
 * get (the watch handler serializes it); bounded to the most recent events, so a watcher far
 * behind decodes for itself rather than the cache keeping old objects alive.
 */
import type { WatchEvent } from '../../store/types.js'
import type { KubeObject } from './object.js'

const LIMIT = 1024

export interface DecodedEvent {
  object: KubeObject
  /** The previous value (updates): decoded on first need. */
  previous?: KubeObject
}

export class SharedDecodes {
  private readonly decoded = new Map<WatchEvent, DecodedEvent>()
  /** The last event asked for: its watchers ask one after another (no map lookup for them). */
  private lastEvent: WatchEvent | undefined
  private lastEntry: DecodedEvent | undefined

  /** The decoded event, decoding it on first use. */
  get(ev: WatchEvent, decode: () => KubeObject): DecodedEvent {
    if (ev === this.lastEvent) return this.lastEntry!
    let entry = this.decoded.get(ev)
    if (!entry) {
      entry = { object: decode() }
      if (this.decoded.size >= LIMIT) this.decoded.delete(this.decoded.keys().next().value as WatchEvent)
      this.decoded.set(ev, entry)
    }
    this.lastEvent = ev
    this.lastEntry = entry
    return entry
  }
}
