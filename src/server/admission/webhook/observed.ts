/**
 * One webhook call with the reference's metrics around it (the dispatchers' observation of
 * callHook): its latency and request count with the code it came to, and, when it refuses
 * the request, the rejection by error type — a failure to call it counts as a rejection only
 * when its failurePolicy is not Ignore.
 */
import type { AdmissionAttributes } from '../attributes.js'
import { type WebhookType, secondsSince } from '../metrics.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { ErrCallingWebhook, WebhookRejection } from './errors.js'

/** Runs `call` (one webhook's call), observing it on the server's admission metrics. */
export async function observedCall<T>(webhook: Obj, attributes: AdmissionAttributes, type: WebhookType, init: PluginInitialization, call: () => Promise<T>): Promise<T> {
  const metrics = init.metrics
  if (!metrics) return trackedCall(attributes, type, call)
  return trackedCall(attributes, type, () => observed(webhook, attributes, type, metrics, call))
}

/** The call's duration on the request's webhook latency: mutating calls add up, validating ones keep the longest. */
async function trackedCall<T>(attributes: AdmissionAttributes, type: WebhookType, call: () => Promise<T>): Promise<T> {
  const start = performance.now()
  try {
    return await call()
  } finally {
    const ms = performance.now() - start
    const latency = (attributes.webhookLatency ??= { mutating: 0, validating: 0 })
    if (type === 'admit') latency.mutating += ms
    else latency.validating = Math.max(latency.validating, ms)
  }
}

async function observed<T>(webhook: Obj, attributes: AdmissionAttributes, type: WebhookType, metrics: NonNullable<PluginInitialization['metrics']>, call: () => Promise<T>): Promise<T> {
  const name = typeof webhook.name === 'string' ? webhook.name : ''
  const { operation } = attributes
  const start = performance.now()
  try {
    const result = await call()
    metrics.observeWebhook(name, secondsSince(start), false, operation, type, 200)
    return result
  } catch (err) {
    const seconds = secondsSince(start)
    if (err instanceof ErrCallingWebhook) {
      const rejected = webhook.failurePolicy !== 'Ignore'
      if (rejected) metrics.observeWebhookRejection(name, type, operation, 'calling_webhook_error', err.statusCode)
      metrics.observeWebhook(name, seconds, rejected, operation, type, err.statusCode)
    } else if (err instanceof WebhookRejection) {
      metrics.observeWebhookRejection(name, type, operation, 'no_error', err.code)
      metrics.observeWebhook(name, seconds, true, operation, type, err.code)
    } else {
      metrics.observeWebhookRejection(name, type, operation, 'apiserver_internal_error', 0)
      metrics.observeWebhook(name, seconds, true, operation, type, 0)
    }
    throw err
  }
}
