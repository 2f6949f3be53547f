/**
 * A webhook's matchConditions (the reference's webhook/matchconditions matcher): CEL
 * expressions over `object`, `oldObject` and `request` (the AdmissionRequest the webhook would
 * be sent), compiled in the admission environment the configuration's validation uses. The
 * first false one skips the webhook; otherwise errors go to the failurePolicy (Ignore skips,
 * Fail refuses); all true calls it.
 */
import { type CelProgram, CelCompileError, compileCel } from '../../../core/cel/index.js'
import { isPlainObject } from '../../api/registry/object.js'
import { admissionEnvironment } from '../../api/validation/admissionregistration.js'
import type { AdmissionAttributes } from '../attributes.js'
import type { Obj } from './configurations.js'
import { ErrCallingWebhook, failedClosed } from './errors.js'
import { createAdmissionReview } from './review.js'

const compiled = new Map<string, CelProgram | Error>()

function program(expression: string): CelProgram | Error {
  let found = compiled.get(expression)
  if (!found) {
    try {
      found = compileCel(admissionEnvironment(false, false), expression, ['bool'])
    } catch (err) {
      if (!(err instanceof CelCompileError)) throw err
      found = err
    }
    compiled.set(expression, found)
  }
  return found
}

/** Whether the webhook's conditions let it be called; an error under failurePolicy Fail refuses (500). */
export function matchConditionsMatch(webhook: Obj, attributes: AdmissionAttributes): boolean {
  const conditions = Array.isArray(webhook.matchConditions) ? webhook.matchConditions.filter(isPlainObject) : []
  if (conditions.length === 0) return true
  const activation = {
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    request: (createAdmissionReview(attributes, 'v1').body.request as Obj) ?? null,
    namespaceObject: null,
    variables: {},
  }
  const errors: string[] = []
  for (const condition of conditions) {
    const expression = typeof condition.expression === 'string' ? condition.expression : ''
    const compiledProgram = program(expression)
    if (compiledProgram instanceof Error) {
      errors.push(`compilation errors: ${compiledProgram.message}`)
      continue
    }
    let result: unknown
    try {
      result = compiledProgram.evaluate(activation)
    } catch (err) {
      errors.push(`expression '${expression}' resulted in error: ${(err as Error).message}`)
      continue
    }
    if (result === false) return false
  }
  if (errors.length === 0) return true
  if (webhook.failurePolicy === 'Ignore') return false
  const name = typeof webhook.name === 'string' ? webhook.name : ''
  throw failedClosed(new ErrCallingWebhook(name, `failed to evaluate match condition: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`))
}
