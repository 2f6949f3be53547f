/**
 * The token cleaner (the reference's pkg/controller/bootstrap/tokencleaner.go,
 * kube-controller-manager's `token-cleaner-controller`, off unless `--controllers` names it):
 * a bootstrap token Secret in kube-system whose `expiration` has passed is deleted (with its uid
 * as a precondition); one not yet expired is looked at again when it will be, on the cluster's
 * clock.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { expiration, isBootstrapTokenSecret } from './bootstrap/bootstrap-tokens.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('token-cleaner')

export interface TokenCleanerOptions {
  readonly clock?: Clock
  readonly recheckMs?: number
  readonly onError?: (err: Error) => void
}

export class TokenCleanerController implements Controller {
  readonly name = 'token-cleaner-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private secrets!: GenericStore
  private readonly clock: Clock

  constructor(private readonly options: TokenCleanerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  async start(ctx: ControllerContext): Promise<void> {
    const secrets = ctx.registry.lookup('', 'v1', 'secrets')
    if (!secrets) return
    this.secrets = secrets
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `token cleaner: ${e.message}`)))(err as Error)
    this.queue = new KeyedQueue((name) => this.sync(name), { clock: this.clock, recheckMs: this.options.recheckMs ?? 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ type, object, strategy }) => {
      if (strategy.group === '' && strategy.resource === 'secrets' && type !== 'deleted' && isBootstrapTokenSecret(object)) this.queue?.add(object.metadata.name ?? '')
    })
    this.queue.start()
    for (const secret of (await secrets.list({ namespace: 'kube-system' })).items) if (isBootstrapTokenSecret(secret)) this.queue.add(secret.metadata.name ?? '')
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  /** evaluateSecret. */
  private async sync(name: string): Promise<void> {
    let secret: KubeObject
    try {
      secret = await this.secrets.get('kube-system', name)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    if (!isBootstrapTokenSecret(secret)) return
    const { ttlMs, expired } = expiration(secret, this.clock.now())
    if (!expired) {
      if (ttlMs > 0) this.queue?.addAfter(name, ttlMs)
      return
    }
    try {
      await this.secrets.delete('kube-system', name, { preconditions: { uid: secret.metadata.uid! }, admission: ADMISSION })
    } catch (err) {
      const code = toApiError(err).status.code
      if (code !== 404 && code !== 409) throw err
    }
  }
}
