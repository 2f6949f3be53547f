/**
 * A ValidatingAdmissionPolicy's expressions compiled once (the reference's validating
 * compilePolicy): its variables, matchConditions, validations and audit annotations with the
 * authorizer declared, its messageExpressions without it, `params` declared when it has a
 * paramKind.
 */
import type { KubeObject } from '../../../api/registry/object.js'
import { type CompiledExpression, CompiledVariables, type ExpressionOptions, compileExpression } from '../composition.js'
import { type CompiledMatchCondition, compileMatchConditions } from '../match-conditions.js'
import { specOf } from '../sources.js'

export interface CompiledValidation {
  readonly expression: string
  readonly compiled: CompiledExpression
  readonly message: string
  /** Forbidden, Invalid, Unauthorized, RequestEntityTooLarge; absent: Invalid. */
  readonly reason?: string
  readonly messageExpression?: CompiledExpression
}

export interface CompiledAuditAnnotation {
  readonly key: string
  readonly valueExpression: string
  readonly compiled: CompiledExpression
}

/** The policy's evaluator (the reference's Validator, before it is given a request). */
export interface CompiledPolicy {
  readonly name: string
  readonly failurePolicy: string
  readonly variables: CompiledVariables
  readonly matchConditions: readonly CompiledMatchCondition[]
  readonly validations: readonly CompiledValidation[]
  readonly auditAnnotations: readonly CompiledAuditAnnotation[]
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [])

export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const spec = specOf(policy)
  const hasParams = typeof spec.paramKind === 'object' && spec.paramKind !== null
  const withAuthorizer: ExpressionOptions = { hasParams, hasAuthorizer: true }
  const withoutAuthorizer: ExpressionOptions = { hasParams, hasAuthorizer: false }
  return {
    name: str(policy.metadata.name),
    failurePolicy: str(spec.failurePolicy) || 'Fail',
    variables: new CompiledVariables(
      list(spec.variables).map((v) => ({ name: str(v.name), expression: str(v.expression) })),
      withAuthorizer,
    ),
    matchConditions: compileMatchConditions(spec.matchConditions, withAuthorizer),
    validations: list(spec.validations).map((v) => ({
      expression: str(v.expression),
      compiled: compileExpression(str(v.expression), withAuthorizer, ['bool']),
      message: str(v.message),
      ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
      ...(str(v.messageExpression) !== '' ? { messageExpression: compileExpression(str(v.messageExpression), withoutAuthorizer, ['string']) } : {}),
    })),
    auditAnnotations: list(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      valueExpression: str(a.valueExpression),
      compiled: compileExpression(str(a.valueExpression), withAuthorizer, ['string', 'null_type']),
    })),
  }
}
