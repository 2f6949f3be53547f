/**
 * The webhooks of the stored Mutating/ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1),
 * as the reference's configuration managers hand them to the dispatchers: configurations
 * sorted by name, each one's webhooks in their order. Read by a cheap list kept for a short
 * while, so that a change is in effect within a second without an informer.
 */
import { isPlainObject } from '../../api/registry/object.js'
import type { PluginInitialization } from '../plugins.js'

export type Obj = Record<string, unknown>

/** One webhook of a configuration (the reference's WebhookAccessor). */
export interface WebhookAccessor {
  /** `<configuration>/<webhook>/<index>`, unique across the configurations. */
  readonly uid: string
  readonly configurationName: string
  readonly webhook: Obj
}

/** How long a list stays in use: changes are in effect within a second. */
const CACHE_MS = 250

export class WebhookConfigurations {
  private cached?: { at: number; hooks: WebhookAccessor[] }

  constructor(
    private readonly init: PluginInitialization,
    /** `mutatingwebhookconfigurations` or `validatingwebhookconfigurations`. */
    private readonly resource: string,
  ) {}

  /** The webhooks; at once (no Promise) while the last read is fresh, as on nearly every request. */
  webhooks(): WebhookAccessor[] | Promise<WebhookAccessor[]> {
    const now = Date.now()
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.hooks
    return this.read(now)
  }

  private async read(now: number): Promise<WebhookAccessor[]> {
    const store = this.init.stores()?.lookup('admissionregistration.k8s.io', 'v1', this.resource)
    if (!store) return []
    const { items } = await store.list()
    const hooks: WebhookAccessor[] = []
    const byName = [...items].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))
    for (const configuration of byName) {
      const configurationName = nameOf(configuration)
      const webhooks = Array.isArray(configuration.webhooks) ? configuration.webhooks : []
      webhooks.forEach((webhook, index) => {
        if (isPlainObject(webhook)) hooks.push({ uid: `${configurationName}/${String(webhook.name)}/${index}`, configurationName, webhook })
      })
    }
    this.cached = { at: now, hooks }
    return hooks
  }
}

function nameOf(o: { metadata?: unknown }): string {
  const metadata = isPlainObject(o.metadata) ? o.metadata : {}
  return typeof metadata.name === 'string' ? metadata.name : ''
}
