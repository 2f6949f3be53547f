/**
 * The bootstrap signer (the reference's pkg/controller/bootstrap/bootstrapsigner.go,
 * kube-controller-manager's `bootstrap-signer-controller`, off unless `--controllers` names
 * it): the ConfigMap `cluster-info` in kube-public carries, for each bootstrap token allowed to
 * sign (`usage-bootstrap-signing: "true"`, not expired), `jws-kubeconfig-<token-id>`: the
 * detached JWS of its `kubeconfig` with that token, so that a joining node can check the
 * cluster's CA with its token. Signatures of tokens gone are removed; the ConfigMap is written
 * only when they change.
 */
import type { GenericStore } from '../api/registry/generic-store.js'
import type { KubeObject } from '../api/registry/object.js'
import { toApiError } from '../api/status-errors.js'
import { isBootstrapTokenSecret, signingToken } from './bootstrap/bootstrap-tokens.js'
import { computeDetachedSignature } from './bootstrap/jws.js'
import { type Clock, SYSTEM_CLOCK } from './clock.js'
import type { Controller, ControllerContext } from './controller.js'
import { asControllerServiceAccount } from './kit/controller-identity.js'
import { KeyedQueue } from './kit/keyed-queue.js'

const ADMISSION = asControllerServiceAccount('bootstrap-signer')
const NAMESPACE = 'kube-public'
const CONFIG_MAP = 'cluster-info'
const KUBECONFIG_KEY = 'kubeconfig'
const SIGNATURE_PREFIX = 'jws-kubeconfig-'

export interface BootstrapSignerOptions {
  readonly clock?: Clock
  readonly onError?: (err: Error) => void
}

export class BootstrapSignerController implements Controller {
  readonly name = 'bootstrap-signer-controller'
  private queue: KeyedQueue | undefined
  private unsubscribe: (() => void) | undefined
  private secrets!: GenericStore
  private configMaps!: GenericStore
  private readonly clock: Clock

  constructor(private readonly options: BootstrapSignerOptions = {}) {
    this.clock = options.clock ?? SYSTEM_CLOCK
  }

  start(ctx: ControllerContext): void {
    const secrets = ctx.registry.lookup('', 'v1', 'secrets')
    const configMaps = ctx.registry.lookup('', 'v1', 'configmaps')
    if (!secrets || !configMaps) return
    this.secrets = secrets
    this.configMaps = configMaps
    const onError = (err: unknown) => (this.options.onError ?? ((e: Error) => ctx.log(2, `bootstrap signer: ${e.message}`)))(err as Error)
    // The reference resyncs every 5 minutes: token expiry is noticed then.
    this.queue = new KeyedQueue(() => this.sign(), { clock: this.clock, recheckMs: 1000, onError })
    this.unsubscribe = ctx.registry.onChange(({ object, strategy }) => {
      if (strategy.group !== '') return
      if ((strategy.resource === 'secrets' && isBootstrapTokenSecret(object)) || (strategy.resource === 'configmaps' && object.metadata.namespace === NAMESPACE && object.metadata.name === CONFIG_MAP)) this.queue?.add(CONFIG_MAP)
    })
    this.queue.start()
    this.queue.add(CONFIG_MAP)
  }

  stop(): void {
    this.unsubscribe?.()
    this.queue?.stop()
  }

  /** signConfigMap. */
  private async sign(): Promise<void> {
    this.queue?.addAfter(CONFIG_MAP, 5 * 60 * 1000)
    let cm: KubeObject
    try {
      cm = await this.configMaps.get(NAMESPACE, CONFIG_MAP)
    } catch (err) {
      if (toApiError(err).status.code === 404) return
      throw err
    }
    const data = (cm.data ?? {}) as Record<string, string>
    const content = data[KUBECONFIG_KEY]
    if (content === undefined) return
    const now = this.clock.now()
    const wanted: Record<string, string> = {}
    for (const secret of (await this.secrets.list({ namespace: 'kube-system' })).items) {
      if (!isBootstrapTokenSecret(secret)) continue
      const token = signingToken(secret, now)
      if (token) wanted[`${SIGNATURE_PREFIX}${token.id}`] = computeDetachedSignature(content, token.id, token.secret)
    }
    const kept = Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(SIGNATURE_PREFIX)))
    const next = { ...kept, ...wanted }
    if (JSON.stringify(Object.entries(next).sort()) === JSON.stringify(Object.entries(data).sort())) return
    // Signed for the kubeconfig read; if it changed meanwhile, its own change brings another pass.
    await this.configMaps.update(NAMESPACE, CONFIG_MAP, (c) => ((c.data as Record<string, string> | undefined)?.[KUBECONFIG_KEY] === content ? { ...c, data: next } : c), { admission: ADMISSION })
  }
}
