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
import type { Obj, WebhookAccessor } from './configurations.js'
import { candidateHooks } from './candidates.js'
import { type WebhookInvocation, equivalentStores, versionedAttributes } from './equivalents.js'
import { invocationFor } from './invocation.js'
import { matchConditionsMatch } from './match-conditions.js'
import { rulesMatch } from './rules.js'
import { namespaceSelectorMatches, objectSelectorMatches } from './selectors.js'

/** A webhook's call: where it is called, and the attributes (converted to that version) it sees. */
export interface HookCall {
  invocation: WebhookInvocation
  versioned: AdmissionAttributes
}

/** The webhooks of `hooks` whose rules may match the request (candidates.ts): the others are never called. */
export function candidateWebhooks(hooks: readonly WebhookAccessor[], attributes: AdmissionAttributes, init: PluginInitialization): readonly WebhookAccessor[] | Promise<readonly WebhookAccessor[]> {
  return candidateHooks(hooks, attributes, {
    exact: (hook) => rulesMatch(hook.webhook, attributes),
    equivalent: (hook) => hook.webhook.matchPolicy === 'Equivalent',
    // invocationFor looks further only when the resource has another store than its own.
    hasEquivalents: async () => (await equivalentStores(init, attributes.resource)).length >= 2,
  })
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
