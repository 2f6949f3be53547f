/**
 * The ValidatingAdmissionWebhook plugin (the reference's webhook/validating): every matching
 * webhook of the ValidatingWebhookConfigurations is called at once; the first refusal, in the
 * webhooks' order, refuses the request.
 */
import type { AdmissionAttributes } from '../attributes.js'
import type { ValidationInterface } from '../interfaces.js'
import type { PluginInitialization } from '../plugins.js'
import { callWebhook } from './call.js'
import { type Obj, WebhookConfigurations } from './configurations.js'
import { applyFailurePolicy } from './failure-policy.js'
import { type HookCall, candidateWebhooks, shouldCallHook } from './matches.js'
import { observedCall } from './observed.js'
import { isExemptAdmissionConfigurationResource } from './rules.js'
import { stopNamespaceCache } from '../namespace-cache.js'

export const VALIDATING_ADMISSION_WEBHOOK = 'ValidatingAdmissionWebhook'

/** The audit annotation of a webhook that failed open (the reference's ValidatingAuditAnnotationFailedOpenKeyPrefix). */
const FAILED_OPEN_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/'

export class ValidatingAdmissionWebhook implements ValidationInterface {
  private readonly configurations: WebhookConfigurations

  constructor(private readonly init: PluginInitialization) {
    this.configurations = new WebhookConfigurations(init, 'validatingwebhookconfigurations')
  }

  handles(): boolean {
    return true
  }

  /** Stops the namespace informer the selectors read. */
  stop(): void {
    stopNamespaceCache(this.init)
  }

  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attributes)) return
    const relevant: Array<{ webhook: Obj; call: HookCall }> = []
    const read = this.configurations.webhooks()
    const candidates = candidateWebhooks(read instanceof Promise ? await read : read, attributes, this.init)
    for (const hook of candidates instanceof Promise ? await candidates : candidates) {
      const call = await shouldCallHook(hook.webhook, attributes, this.init, 'validating')
      if (call) relevant.push({ webhook: hook.webhook, call })
    }
    if (relevant.length === 0) return
    const outcomes = await Promise.all(
      relevant.map(async ({ webhook, call: { invocation, versioned } }, index) => {
        try {
          await observedCall(webhook, attributes, 'validating', this.init, () => callWebhook(webhook, versioned, false, this.init, invocation))
          return undefined
        } catch (err) {
          try {
            applyFailurePolicy(webhook, err, this.init, attributes, `${FAILED_OPEN_PREFIX}round_0_index_${index}`, 'validating')
            return undefined
          } catch (refusal) {
            return refusal
          }
        }
      }),
    )
    const refusal = outcomes.find((o) => o !== undefined)
    if (refusal !== undefined) throw refusal
  }
}
