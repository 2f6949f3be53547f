/**
 * What a webhook's failure to answer does (the dispatchers' failurePolicy handling): Ignore
 * admits (the failure is logged), Fail (the default) refuses with an internal error.
 */
import { type AdmissionAttributes, addAnnotation } from '../attributes.js'
import type { WebhookType } from '../metrics.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { ErrCallingWebhook, failedClosed } from './errors.js'

/**
 * Rethrows `err` as the request's refusal, or returns when the webhook fails open, after
 * recording the audit annotation `failedOpenKey` names (`failed-open.<...>/round_<r>_index_<i>`,
 * the webhook's name as value).
 */
export function applyFailurePolicy(webhook: Obj, err: unknown, init: PluginInitialization, attributes: AdmissionAttributes, failedOpenKey: string, type: WebhookType): void {
  if (!(err instanceof ErrCallingWebhook)) throw err
  if (webhook.failurePolicy === 'Ignore') {
    init.log(2, `Failed calling webhook, failing open ${err.webhookName}: ${err.message}`)
    init.metrics?.observeWebhookFailOpen(err.webhookName, type)
    try {
      addAnnotation(attributes, failedOpenKey, err.webhookName)
    } catch (annotationError) {
      init.log(2, `Failed to set admission audit annotation ${failedOpenKey} to ${err.webhookName}: ${(annotationError as Error).message}`)
    }
    return
  }
  init.log(2, `Failed calling webhook, failing closed ${err.webhookName}: ${err.message}`)
  throw failedClosed(err)
}
