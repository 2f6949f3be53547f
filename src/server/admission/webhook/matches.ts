/**
 * Whether a webhook is called for a request (the reference's generic Webhook.ShouldCallHook):
 * its rules (with matchPolicy Equivalent, also through an equivalent resource: invocation.ts),
 * then its namespace and object selectors (a selector that cannot be evaluated refuses the
 * request only when the other does not already skip the webhook), then its matchConditions
 * over the attributes as the webhook would see them (a failure to evaluate them refuses the
 * request as Forbidden, unless failurePolicy is Ignore).
 */
import { ApiError, errors } from '../../api/status-errors.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { WebhookType } from '../metrics.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { type WebhookInvocation, versionedAttributes } from './equivalents.js'
import { invocationFor } from './invocation.js'
import { matchConditionsMatch } from './match-conditions.js'
import { namespaceSelectorMatches, objectSelectorMatches } from './selectors.js'

/** A webhook's call: where it is called, and the attributes (converted to that version) it sees. */
export interface HookCall {
  invocation: WebhookInvocation
  versioned: AdmissionAttributes
}

export async function shouldCallHook(webhook: Obj, attributes: AdmissionAttributes, init: PluginInitialization, type: WebhookType): Promise<HookCall | undefined> {
  const invocation = await invocationFor(webhook, attributes, init)
  if (!invocation) return undefined
  let namespaceError: unknown
  let namespaceMatches = true
  try {
    namespaceMatches = await namespaceSelectorMatches(webhook, attributes, init)
  } catch (err) {
    namespaceError = err
  }
  if (!namespaceMatches && namespaceError === undefined) return undefined
  if (!objectSelectorMatches(webhook, attributes)) return undefined
  if (namespaceError !== undefined) throw namespaceError
  let versioned: AdmissionAttributes
  try {
    versioned = await versionedAttributes(attributes, invocation, init)
  } catch (err) {
    // The reference's VersionedAttribute: a conversion that fails is an internal error.
    throw err instanceof ApiError ? err : errors.internal((err as Error).message)
  }
  return (await matchConditionsMatch(webhook, versioned, invocation, init, type)) ? { invocation, versioned } : undefined
}
