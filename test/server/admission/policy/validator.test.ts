/**
 * One policy's verdict on one evaluation (the reference's validating validator.go), with the
 * expressions' results given as validator_test.go gives them (fake programs): decisions by
 * result and failurePolicy, the reason (Invalid unless set), the message order
 * (messageExpression, message, `failed expression: <e>`), audit annotations; and a result that
 * comes as a Promise (an asynchronous authorizer) is waited for.
 */
import assert from 'node:assert/strict'
import type { CelProgram } from '../../../../src/core/cel/index.js'
import { CompiledVariables, type CompiledExpression, PolicyActivation } from '../../../../src/server/admission/policy/composition.js'
import type { CompiledPolicy } from '../../../../src/server/admission/policy/validating/compile.js'
import { validate } from '../../../../src/server/admission/policy/validating/validator.js'

const returns = (expression: string, value: unknown): CompiledExpression => ({ expression, program: { expression, outputType: 'dyn', evaluate: () => value, evaluateJson: () => value, evaluateWithCost: () => ({ value, cost: 0n }) } as unknown as CelProgram })
const throws = (expression: string, message: string): CompiledExpression => ({
  expression,
  program: { expression, outputType: 'dyn', evaluate: () => { throw new Error(message) }, evaluateJson: () => undefined, evaluateWithCost: () => ({ error: new Error(message), cost: 0n }) } as unknown as CelProgram,
})

const policy = (over: Partial<CompiledPolicy>): CompiledPolicy => ({
  name: 'p',
  failurePolicy: 'Fail',
  variables: new CompiledVariables([], { hasParams: false, hasAuthorizer: false }),
  matchConditions: [],
  validations: [],
  auditAnnotations: [],
  ...over,
})
const activation = new PolicyActivation({ object: null, oldObject: null, request: null, namespaceObject: null, params: null }, undefined)
const run = (p: CompiledPolicy) => validate(p, { matchConditions: activation, expressions: activation })

describe('admission: ValidatingAdmissionPolicy validator (validator_test.go)', () => {
  it('an error denies under Fail (the error as message) and admits under Ignore', async () => {
    const validations = [{ expression: 'this.expression == unit.test', compiled: throws('this.expression == unit.test', 'no such key: expression'), message: '' }]
    assert.deepEqual((await run(policy({ validations }))).decisions, [
      { action: 'deny', evaluation: 'error', message: "expression 'this.expression == unit.test' resulted in error: no such key: expression" },
    ])
    assert.deepEqual((await run(policy({ failurePolicy: 'Ignore', validations }))).decisions, [
      { action: 'admit', evaluation: 'error', message: "expression 'this.expression == unit.test' resulted in error: no such key: expression" },
    ])
  })

  it('false: the reason (Invalid unset), the message or failed expression', async () => {
    const got = await run(
      policy({
        validations: [
          { expression: 'this.expression == unit.test', compiled: returns('this.expression == unit.test', false), message: '' },
          { expression: 'this.expression.2 == unit.test.2', compiled: returns('this.expression.2 == unit.test.2', false), message: '', reason: 'Unauthorized' },
          { expression: 'x', compiled: returns('x', false), message: 'test', reason: 'Forbidden' },
          { expression: 'y', compiled: returns('y', true), message: 'never' },
        ],
      }),
    )
    assert.deepEqual(got.decisions, [
      { action: 'deny', evaluation: 'deny', reason: 'Invalid', message: 'failed expression: this.expression == unit.test' },
      { action: 'deny', evaluation: 'deny', reason: 'Unauthorized', message: 'failed expression: this.expression.2 == unit.test.2' },
      { action: 'deny', evaluation: 'deny', reason: 'Forbidden', message: 'test' },
      { action: 'admit', evaluation: 'admit', message: '' },
    ])
  })

  it('messageExpression: its string overrides the message; an error or a non-string falls back', async () => {
    const deny = (messageExpression: CompiledExpression, message: string) => ({ expression: 'e', compiled: returns('e', false), message, reason: 'Forbidden', messageExpression })
    const got = await run(
      policy({
        validations: [
          deny(returns('m', 'evaluated message'), 'I am overwritten'),
          deny(throws('m', 'boom'), 'test1'),
          deny(returns('m', 12n), 'test1'),
          deny(returns('m', '   '), 'I am not overwritten'),
        ],
      }),
    )
    assert.deepEqual(
      got.decisions.map((d) => d.message),
      ['evaluated message', 'test1', 'test1', 'I am not overwritten'],
    )
  })

  it('matchConditions: false means no decisions; an error is one decision under the failurePolicy', async () => {
    const validations = [{ expression: 'e', compiled: returns('e', false), message: 'no' }]
    assert.deepEqual(await run(policy({ validations, matchConditions: [{ name: 'c', compiled: returns('c', false) }] })), { decisions: [], auditAnnotations: [] })
    const failing = [{ name: 'c', compiled: throws('c', 'boom') }]
    assert.deepEqual((await run(policy({ validations, matchConditions: failing }))).decisions, [{ action: 'deny', evaluation: 'error', message: "expression 'c' resulted in error: boom" }])
    assert.deepEqual(await run(policy({ failurePolicy: 'Ignore', validations, matchConditions: failing })), { decisions: [], auditAnnotations: [] })
  })

  it('audit annotations: published, excluded, and errors under Fail and Ignore', async () => {
    const auditAnnotations = [
      { key: 'a', valueExpression: "'x'", compiled: returns("'x'", ' x ') },
      { key: 'b', valueExpression: 'null', compiled: returns('null', null) },
      { key: 'c', valueExpression: "'this is not valid CEL", compiled: { expression: "'this is not valid CEL", error: 'compilation failed: ERROR' } },
    ]
    assert.deepEqual((await run(policy({ auditAnnotations }))).auditAnnotations, [
      { key: 'a', action: 'publish', value: 'x' },
      { key: 'b', action: 'exclude' },
      { key: 'c', action: 'error', error: 'compilation error: compilation failed: ERROR' },
    ])
    assert.deepEqual((await run(policy({ failurePolicy: 'Ignore', auditAnnotations }))).auditAnnotations[2], { key: 'c', action: 'exclude', error: 'compilation error: compilation failed: ERROR' })
  })

  it('a result that comes as a Promise is waited for', async () => {
    const got = await run(policy({ validations: [{ expression: 'e', compiled: returns('e', Promise.resolve(false)), message: 'later' }, { expression: 'f', compiled: returns('f', Promise.resolve(true)), message: '' }] }))
    assert.deepEqual(got.decisions, [
      { action: 'deny', evaluation: 'deny', reason: 'Invalid', message: 'later' },
      { action: 'admit', evaluation: 'admit', message: '' },
    ])
  })
})
