/**
 * What a webhook's failure to answer does (the dispatchers' failurePolicy handling): Ignore
 * admits (the failure is logged), Fail (the default) refuses with an internal error.
 */
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { ErrCallingWebhook, failedClosed } from './errors.js'

/** Rethrows `err` as the request's refusal, or returns when the webhook fails open. */
export function applyFailurePolicy(webhook: Obj, err: unknown, init: PluginInitialization): void {
  if (!(err instanceof ErrCallingWebhook)) throw err
  if (webhook.failurePolicy === 'Ignore') {
    init.log(2, `Failed calling webhook, failing open ${err.webhookName}: ${err.message}`)
    return
  }
  init.log(2, `Failed calling webhook, failing closed ${err.webhookName}: ${err.message}`)
  throw failedClosed(err)
}
