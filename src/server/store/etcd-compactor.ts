import type { Etcd3, ITxnResponse } from 'etcd3'
import { startCompactor, type Compactor } from './compactor.js'

/**
 * The key every API server on one etcd uses to agree on compaction (the reference's
 * `compact_rev_key`, deliberately outside any prefix): its version counts compactions, so
 * when several servers tick, only the one whose view is current compacts.
 */
const COMPACT_REV_KEY = Buffer.from('compact_rev_key')

/**
 * The reference compactor: every interval, bump `compact_rev_key` if nobody else did since
 * our last tick, and if we won, compact etcd to the revision seen at the previous tick.
 */
export function startEtcdCompactor(
  client: Etcd3,
  intervalMs: number,
  timeoutMs: number,
  onError: (err: unknown) => void,
): Compactor {
  // Version of compact_rev_key we last saw (the reference's "compactTime").
  let compactTime = 0
  return startCompactor(
    intervalMs,
    async previousRev => {
      const deadline = () => ({ deadline: Date.now() + timeoutMs })
      const res: ITxnResponse = await client.kv.txn(
        {
          compare: [{ key: COMPACT_REV_KEY, target: 'Version', result: 'Equal', version: compactTime }],
          success: [{ request_put: { key: COMPACT_REV_KEY, value: Buffer.from(String(previousRev)) } }],
          failure: [{ request_range: { key: COMPACT_REV_KEY } }],
        },
        deadline(),
      )
      const curRev = Number(res.header.revision)
      if (!res.succeeded) {
        compactTime = Number(res.responses[0]?.response_range.kvs[0]?.version ?? 0)
        return curRev
      }
      compactTime += 1
      // No compaction on the first tick: there is no previous revision yet.
      if (previousRev === 0) return curRev
      try {
        await client.kv.compact({ revision: previousRev }, deadline())
      } catch (err) {
        // Another server may have compacted further already; that is the goal reached.
        if (!String((err as Error).message).includes('required revision has been compacted')) onError(err)
      }
      return curRev
    },
    onError,
  )
}
