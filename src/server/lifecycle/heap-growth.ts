/**
 * How far V8 lets the heap grow past what a full collection found alive, for `cluster start`.
 * V8 sizes the next collection's limit from the last one's live size times a factor it picks
 * between 1.1 and 4 from the collector's speed against the allocation rate: a process with a
 * large machine's heap limit (4 GB here) and a high write rate gets the top of that range. A
 * cluster of a thousand simulated nodes writes about 130 objects a second in steady state, and
 * thousands a second while its pods start, so its heap grew to three or four times its live
 * objects (measured: 87 MB alive in a 330 MB heap at 200 nodes and 2,000 pods; 1.2 GB of RSS
 * at a thousand nodes and 10,000 pods). A fixed factor of 1.5 keeps the heap within half again
 * of what lives, for a few more major collections (concurrent marking does most of their work on
 * another thread). `server start` keeps V8's own sizing.
 */
import { setFlagsFromString } from 'node:v8'

/** The heap may grow to (1 + this / 100) times the live size before the next full collection. */
export const CLUSTER_HEAP_GROWING_PERCENT = 50

/**
 * Bounds the heap's growth factor for the rest of the process. V8 reads the flag at each full
 * collection's sizing (heap-controller's GrowingFactor), so it takes effect after start-up.
 */
export function boundHeapGrowth(percent = CLUSTER_HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`)
}
