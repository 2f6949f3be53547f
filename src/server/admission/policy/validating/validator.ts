/**
 * One policy's verdict on one request with one param (the reference's validating Validator):
 * its matchConditions first (a false one: no decisions), then each validation becomes a
 * decision: admitted when true; denied with the messageExpression's result, else the message,
 * else `failed expression: <expression>`, and its reason (Invalid when unset); an expression that
 * cannot be evaluated denies under failurePolicy Fail and admits under Ignore, with the error as
 * its message. Each audit annotation is published (its trimmed string value), left out (null or
 * blank), or an error that denies under Fail.
 */
import type { EvaluationResult, PolicyActivation } from '../composition.js'
import { evaluateMatchConditions } from '../match-conditions.js'
import type { CompiledPolicy } from './compile.js'

export type DecisionAction = 'admit' | 'deny'
export type DecisionEvaluation = 'admit' | 'deny' | 'error'

export interface PolicyDecision {
  readonly action: DecisionAction
  readonly evaluation: DecisionEvaluation
  readonly message: string
  readonly reason?: string
}

export type AuditAnnotationAction = 'publish' | 'error' | 'exclude'

export interface PolicyAuditAnnotation {
  readonly key: string
  readonly action: AuditAnnotationAction
  readonly value?: string
  readonly error?: string
}

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[]
  readonly auditAnnotations: readonly PolicyAuditAnnotation[]
}

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024

/** The activations of one evaluation: the match conditions see no namespace object and the request's own resource. */
export interface ValidationActivations {
  readonly matchConditions: PolicyActivation
  readonly expressions: PolicyActivation
}

const errorAction = (failurePolicy: string): DecisionAction => (failurePolicy === 'Ignore' ? 'admit' : 'deny')


export async function validate(policy: CompiledPolicy, activations: ValidationActivations): Promise<ValidateResult> {
  const failurePolicy = policy.failurePolicy
  if (policy.matchConditions.length > 0) {
    const match = await evaluateMatchConditions(policy.matchConditions, activations.matchConditions, failurePolicy)
    if (match.error !== undefined) {
      return { decisions: [{ action: errorAction(failurePolicy), evaluation: 'error', message: match.error }], auditAnnotations: [] }
    }
    if (!match.matches) return { decisions: [], auditAnnotations: [] }
  }
  const activation = activations.expressions
  const decisions: PolicyDecision[] = []
  for (const validation of policy.validations) {
    const evaluated = activation.evaluate(validation.compiled)
    // Awaited only when it is a Promise: most expressions answer at once.
    const result = evaluated instanceof Promise ? await evaluated : evaluated
    if (result.error !== undefined) decisions.push({ action: errorAction(failurePolicy), evaluation: 'error', message: result.error })
    else if (result.value === true) decisions.push({ action: 'admit', evaluation: 'admit', message: '' })
    else decisions.push({ action: 'deny', evaluation: 'deny', reason: validation.reason ?? 'Invalid', message: await denialMessage(validation, activation) })
  }
  const auditAnnotations: PolicyAuditAnnotation[] = []
  for (const annotation of policy.auditAnnotations) auditAnnotations.push(auditAnnotationResult(annotation, await activation.evaluate(annotation.compiled), failurePolicy))
  return { decisions, auditAnnotations }
}

function auditAnnotationResult(annotation: CompiledPolicy['auditAnnotations'][number], result: EvaluationResult, failurePolicy: string): PolicyAuditAnnotation {
  if (result.error !== undefined) return { key: annotation.key, ...auditError(failurePolicy, result.error) }
  if (result.value === null) return { key: annotation.key, action: 'exclude' }
  if (typeof result.value === 'string') {
    const value = result.value.trim()
    return value === '' ? { key: annotation.key, action: 'exclude' } : { key: annotation.key, action: 'publish', value }
  }
  return {
    key: annotation.key,
    action: 'error',
    error: `valueExpression '${annotation.valueExpression}' resulted in unsupported return type: ${celTypeName(result.value)}. Return type must be either string or null.`,
  }
}

function auditError(failurePolicy: string, error: string): { action: AuditAnnotationAction; error: string } {
  return { action: failurePolicy === 'Ignore' ? 'exclude' : 'error', error }
}

async function denialMessage(validation: CompiledPolicy['validations'][number], activation: PolicyActivation): Promise<string> {
  let message = ''
  if (validation.messageExpression) {
    const result = await activation.evaluate(validation.messageExpression)
    if (result.error === undefined && typeof result.value === 'string') {
      message = result.value.trim()
      // Overlong and multi-line messages are not used, as the reference's.
      if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = ''
    }
  }
  if (message === '' && validation.message.length > 0) message = validation.message.trim()
  if (message === '') message = `failed expression: ${validation.expression.trim()}`
  return message
}

/** A CEL value's type as cel-go names it in messages. */
function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int'
  if (typeof value === 'number') return 'double'
  if (typeof value === 'boolean') return 'bool'
  if (Array.isArray(value)) return 'list'
  if (value instanceof Uint8Array) return 'bytes'
  if (value instanceof Map || (typeof value === 'object' && value !== null)) return 'map'
  return 'dyn'
}
