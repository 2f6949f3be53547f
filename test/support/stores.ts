/**
 * End-to-end suites that must hold on both stores the server supports: the embedded one and
 * a real etcd. `describeEachStore` declares the suite once per store; the etcd variant starts
 * its own etcd (stopped by PID after the suite) and, like `requireEtcd`, fails under CI when
 * etcd is missing and is skipped elsewhere.
 */
import { EtcdServer, requireEtcd } from './etcd.js'

export type StoreName = 'embedded' | 'etcd'

/** The store a suite runs on; `args` are the server's store flags, known once `before` ran. */
export interface StoreChoice {
  readonly name: StoreName
  readonly args: string[]
}

export const STORE_NAMES: readonly StoreName[] = ['embedded', 'etcd']

/**
 * `describe(\`${title} [store]\`)` for each store (or each of `stores`). `body` registers its hooks
 * and tests as in a describe block; its `before` hooks run after the store's, its `after` hooks
 * before the store is stopped. `prefix` names the suite's keys on etcd, so suites never see each
 * other's objects.
 */
export function describeEachStore(title: string, prefix: string, body: (this: Mocha.Suite, store: StoreChoice) => void, stores: readonly StoreName[] = STORE_NAMES): void {
  for (const name of stores) {
    describe(`${title} [${name}]`, function () {
      const store: { name: StoreName; args: string[] } = { name, args: [] }
      let etcd: EtcdServer | undefined
      if (name === 'etcd') {
        before(async function () {
          this.timeout(60_000)
          requireEtcd(this)
          etcd = await EtcdServer.start()
          store.args = [`--store-servers=${etcd.clientUrl}`, `--store-prefix=/${prefix}`]
        })
      }
      body.call(this, store)
      if (name === 'etcd') {
        after(async () => {
          await etcd?.destroy()
        })
      }
    })
  }
}
