/**
 * Calling one webhook (the dispatchers' callHook): the dry-run rule on sideEffects, the
 * AdmissionReview POSTed with the server's one webhook client within timeoutSeconds (the
 * `?timeout=` parameter client-go adds to the URL), the answer checked, its audit annotations
 * (`<webhook>/<key>`) and warnings recorded. A webhook that says no is refused here; a
 * failure to call it is an ErrCallingWebhook for the caller's failurePolicy.
 */
import { type ServiceLookup, caBundlePem, storedServices, postJSON, serviceURL, webhookTarget } from '../../api/kinds/webhook-client.js'
import { isPlainObject } from '../../api/registry/object.js'
import { type AdmissionAttributes, addAnnotation, addWarning } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import type { WebhookInvocation } from './equivalents.js'
import { ErrCallingWebhook, dryRunUnsupported, toStatusErr } from './errors.js'
import { type AdmissionResult, createAdmissionReview, reviewVersion, verifyAdmissionResponse } from './review.js'
import { tracing, withSpan } from '../../tracing/spans.js'

const DEFAULT_TIMEOUT_SECONDS = 10

/** Services for service references, from the registry. */
export function serviceLookup(init: PluginInitialization): ServiceLookup {
  return storedServices(() => init.stores())
}

/**
 * Calls the webhook with `attributes` as it sees them (in its version, see equivalents.ts) for
 * `invocation` (the request as made without one); resolves to its allowing answer, throws its refusal or an ErrCallingWebhook. */
export function callWebhook(webhook: Obj, attributes: AdmissionAttributes, mutating: boolean, init: PluginInitialization, invocation?: WebhookInvocation): Promise<AdmissionResult> {
  if (!tracing()) return callWebhookNow(webhook, attributes, mutating, init, invocation)
  // The reference's dispatchers' span around each call (its traceparent goes with the POST).
  const { group, version, resource } = attributes.resource
  return withSpan(
    mutating ? 'Call mutating webhook' : 'Call validating webhook',
    { webhook: typeof webhook.name === 'string' ? webhook.name : '', resource: `${group}/${version}, Resource=${resource}`, subresource: attributes.subresource, operation: attributes.operation },
    () => callWebhookNow(webhook, attributes, mutating, init, invocation),
  )
}

async function callWebhookNow(webhook: Obj, attributes: AdmissionAttributes, mutating: boolean, init: PluginInitialization, invocation?: WebhookInvocation): Promise<AdmissionResult> {
  const name = typeof webhook.name === 'string' ? webhook.name : ''
  if (attributes.dryRun) {
    if (webhook.sideEffects === undefined) throw new ErrCallingWebhook(name, 'Webhook SideEffects is nil', 400)
    if (webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(name)
  }
  const version = reviewVersion(webhook)
  if (!version) throw new ErrCallingWebhook(name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)', 400)
  const { uid, body } = createAdmissionReview(attributes, version, invocation)
  const clientConfig = isPlainObject(webhook.clientConfig) ? webhook.clientConfig : {}
  const timeoutSeconds = typeof webhook.timeoutSeconds === 'number' ? webhook.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS
  let answer: unknown
  try {
    const service = serviceURL(clientConfig)
    const shownAs = service === undefined ? undefined : `${service}?timeout=${timeoutSeconds}s`
    let target
    try {
      target = await webhookTarget(clientConfig, serviceLookup(init))
    } catch (err) {
      // Go's client resolves the service when it dials: the failure names the request.
      throw new Error(`Post "${shownAs ?? ''}": ${(err as Error).message}`)
    }
    target.url.searchParams.set('timeout', `${timeoutSeconds}s`)
    if (target.shownAs) target.shownAs = shownAs
    answer = await postJSON(target, caBundlePem(clientConfig), JSON.stringify(body), timeoutSeconds * 1000)
  } catch (err) {
    // The webhook's own error code; else the reference's Status for a call that failed
    // (BadRequest from the validating dispatcher, ServiceUnavailable from the mutating one).
    const answered = (err as { statusCode?: unknown }).statusCode
    throw new ErrCallingWebhook(name, `failed to call webhook: ${(err as Error).message}`, typeof answered === 'number' ? answered : mutating ? 503 : 400)
  }
  let result: AdmissionResult
  try {
    result = verifyAdmissionResponse(uid, version, mutating, answer)
  } catch (err) {
    throw new ErrCallingWebhook(name, `received invalid webhook response: ${(err as Error).message}`, 503)
  }
  for (const [key, value] of Object.entries(result.auditAnnotations)) {
    try {
      addAnnotation(attributes, `${name}/${key}`, value)
    } catch (err) {
      init.log(2, `Failed to set admission audit annotation ${name}/${key} to ${value} for ${mutating ? 'mutating' : 'validating'} webhook ${name}: ${(err as Error).message}`)
    }
  }
  for (const warning of result.warnings) addWarning(attributes, warning)
  if (!result.allowed) throw toStatusErr(name, result.result)
  return result
}
