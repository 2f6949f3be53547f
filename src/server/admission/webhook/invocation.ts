/**
 * For which resource and kind a webhook is called (the rules part of the reference's
 * ShouldCallHook): the request as made when a rule matches it; else, with matchPolicy
 * Equivalent, the first rule (in order) that matches an equivalent resource — the same objects
 * served in another version or group — and that resource's kind, the object then being sent
 * converted to it. An equivalent resource whose kind is unknown is an internal error.
 */
import { errors } from '../../api/status-errors.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import { type WebhookInvocation, equivalentStores, kindFor, resourceOf } from './equivalents.js'
import { ruleMatches, rulesOf } from './rules.js'

export async function invocationFor(webhook: Obj, attributes: AdmissionAttributes, init: PluginInitialization): Promise<WebhookInvocation | undefined> {
  const rules = rulesOf(webhook)
  const { resource, subresource, kind } = attributes
  if (rules.some((rule) => ruleMatches(rule, attributes))) return { resource, subresource, kind }
  if (webhook.matchPolicy !== 'Equivalent') return undefined
  const equivalents = await equivalentStores(init, resource)
  if (equivalents.length < 2) return undefined
  for (const rule of rules) {
    for (const store of equivalents) {
      const equivalent = resourceOf(store)
      if (equivalent.group === resource.group && equivalent.version === resource.version && equivalent.resource === resource.resource) continue
      if (!ruleMatches(rule, attributes, equivalent)) continue
      const equivalentKind = kindFor(store, subresource)
      if (!equivalentKind) throw errors.internal(`unable to convert to ${equivalent.group}/${equivalent.version}, Resource=${equivalent.resource}: unknown kind`)
      return { resource: equivalent, subresource, kind: equivalentKind }
    }
  }
  return undefined
}
