/**
 * A webhook's matchConditions (the reference's webhook/matchconditions matcher): CEL
 * expressions over `object`, `oldObject` (in the webhook's version), `request` (the
 * AdmissionRequest the webhook would be sent) and `authorizer` (with `authorizer.requestResource`), compiled in the admission
 * environment the configuration's validation uses. The first false one skips the webhook;
 * otherwise errors go to the failurePolicy (Ignore skips, Fail refuses the request as
 * Forbidden with the errors); all true calls it. Errors, exclusions and the evaluation time
 * are observed on the admission metrics (kind `webhook`).
 */
import { type CelProgram, CelCompileError, compileCel } from '../../../core/cel/index.js'
import { authorizerValue, requestResourceValue } from '../../../core/cel/libraries/authz.js'
import { isPlainObject } from '../../api/registry/object.js'
import { ApiError, errors } from '../../api/status-errors.js'
import { failureStatus } from '../../http/status.js'
import { admissionEnvironment } from '../../api/validation/admissionregistration.js'
import { type AdmissionAttributes, qualifiedResource } from '../attributes.js'
import { type WebhookType, secondsSince } from '../metrics.js'
import type { PluginInitialization } from '../plugins.js'
import type { Obj } from './configurations.js'
import type { WebhookInvocation } from './equivalents.js'
import { createAdmissionReview } from './review.js'

const compiled = new Map<string, CelProgram | Error>()

function program(expression: string): CelProgram | Error {
  let found = compiled.get(expression)
  if (!found) {
    try {
      found = compileCel(admissionEnvironment(false, true), expression, ['bool'])
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err
      found = err
    }
    compiled.set(expression, found)
  }
  return found
}

/** The variables of one evaluation: the authorizer only when the server has one. */
function activation(attributes: AdmissionAttributes, invocation: WebhookInvocation, init: PluginInitialization): Record<string, unknown> {
  const variables: Record<string, unknown> = {
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    request: (createAdmissionReview(attributes, 'v1', invocation).body.request as Obj) ?? null,
    namespaceObject: null,
    variables: {},
  }
  if (init.authorizer) {
    const user = attributes.userInfo ?? { name: '', groups: [] }
    const authorizer = authorizerValue(init.authorizer, user)
    const { group, resource } = attributes.resource
    variables.authorizer = authorizer
    variables['authorizer.requestResource'] = requestResourceValue(authorizer, { group, resource, subresource: attributes.subresource, namespace: attributes.namespace, name: attributes.name })
  }
  return variables
}

/** One condition's result, or the reference's words for its error. */
async function evaluate(expression: string, variables: Record<string, unknown>): Promise<boolean | string> {
  const compiledProgram = program(expression)
  if (compiledProgram instanceof Error) return `compilation error: ${compiledProgram.message}`
  try {
    const result = await compiledProgram.evaluate(variables)
    return result !== false
  } catch (err) {
    const e = err as { summary?: string; message: string }
    return `expression '${expression}' resulted in error: ${e.summary ?? e.message.split('\n')[0]}`
  }
}

/**
 * Whether the webhook's conditions let it be called; an error under failurePolicy Fail refuses
 * the request (403). `type` is the webhook's (validating or admit), for the metrics.
 */
export async function matchConditionsMatch(webhook: Obj, attributes: AdmissionAttributes, invocation: WebhookInvocation, init: PluginInitialization, type: WebhookType): Promise<boolean> {
  const conditions = Array.isArray(webhook.matchConditions) ? webhook.matchConditions.filter(isPlainObject) : []
  if (conditions.length === 0) return true
  const name = typeof webhook.name === 'string' ? webhook.name : ''
  const { operation } = attributes
  const metrics = init.metrics
  const start = performance.now()
  const variables = activation(attributes, invocation, init)
  const failures: string[] = []
  let matches = true
  for (const condition of conditions) {
    const outcome = await evaluate(typeof condition.expression === 'string' ? condition.expression : '', variables)
    if (typeof outcome === 'string') {
      failures.push(outcome)
      metrics?.observeMatchConditionEvalError(name, 'webhook', type, operation)
    } else if (!outcome) {
      matches = false
      break
    }
  }
  metrics?.observeMatchConditionEvaluationTime(secondsSince(start), name, 'webhook', type, operation)
  if (matches && failures.length > 0) {
    if (webhook.failurePolicy !== 'Ignore') {
      init.log(2, `Failed evaluating match conditions, failing closed ${name}: ${failures.join(', ')}`)
      // apierrors.NewForbidden with the errors' aggregate (one error alone, several in brackets).
      const why = failures.length === 1 ? failures[0]! : `[${failures.join(', ')}]`
      throw forbidden(attributes, why)
    }
    matches = false
  }
  if (!matches) metrics?.observeMatchConditionExclusion(name, 'webhook', type, operation)
  return matches
}

/** The reference's apierrors.NewForbidden(resource, attr.GetName(), err): without a name, none is quoted. */
function forbidden(attributes: AdmissionAttributes, why: string): ApiError {
  const { group, resource } = attributes.resource
  if (attributes.name !== '') return errors.forbidden({ group, resource }, attributes.name, why)
  return new ApiError(failureStatus(403, 'Forbidden', `${qualifiedResource(attributes)} is forbidden: ${why}`, { name: '', ...(group ? { group } : {}), kind: resource }))
}
