/**
 * Whether a webhook is called for a request (the reference's generic Webhook.ShouldCallHook):
 * its rules, then its namespace and object selectors (a selector that cannot be evaluated
 * refuses the request only when the other does not already skip the webhook), then its
 * matchConditions (a failure to evaluate them refuses the request as Forbidden, unless failurePolicy is Ignore).
 */
import type { AdmissionAttributes } from '../attributes.js'
import type { WebhookType } from '../metrics.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { matchConditionsMatch } from './match-conditions.js'
import { rulesMatch } from './rules.js'
import { namespaceSelectorMatches, objectSelectorMatches } from './selectors.js'

export async function shouldCallHook(webhook: Obj, attributes: AdmissionAttributes, init: PluginInitialization, type: WebhookType): Promise<boolean> {
  if (!rulesMatch(webhook, attributes)) return false
  let namespaceError: unknown
  let namespaceMatches = true
  try {
    namespaceMatches = await namespaceSelectorMatches(webhook, attributes, init)
  } catch (err) {
    namespaceError = err
  }
  if (!namespaceMatches && namespaceError === undefined) return false
  if (!objectSelectorMatches(webhook, attributes)) return false
  if (namespaceError !== undefined) throw namespaceError
  return matchConditionsMatch(webhook, attributes, init, type)
}
