/**
 * The ValidatingAdmissionPolicy plugin over stored policies, bindings and params: the
 * reference's denial (validating/dispatcher.go: `ValidatingAdmissionPolicy '<p>' with binding
 * '<b>' denied request: <message>`, the reason's code, Invalid by default), the message
 * fallbacks of validator.go (messageExpression, message, `failed expression: <e>`, as
 * validator_test.go), the validation actions (the Warn warning, the Audit annotation of
 * admission_test.go's TestAuditValidationAction), audit annotations, failurePolicy, params
 * (name, selector, parameterNotFoundAction, the messages of admission_test.go), matchConditions
 * and variables.
 */
import assert from 'node:assert/strict'
import { refusal } from '../table-support.js'
import { CONFIGMAPS, type PolicyWorld, configMapAttributes, openPolicyWorld } from './support.js'

type Obj = Record<string, any>

describe('admission: ValidatingAdmissionPolicy', function () {
  this.timeout(20_000)
  let world: PolicyWorld

  beforeEach(async () => {
    world = await openPolicyWorld(['default', 'other'])
  })
  afterEach(async () => world.close())

  const policy = (name: string, spec: Obj) => world.policy(name, { matchConstraints: CONFIGMAPS, ...spec })
  const binding = (name: string, policyName: string, spec: Obj = {}) => world.binding(name, { policyName, validationActions: ['Deny'], ...spec })
  const param = (name: string, data: Obj, namespace = 'default', labels: Obj = {}) =>
    world.create('', 'v1', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data })

  describe('denials', () => {
    const cases: Array<{ name: string; validation: Obj; code: number; reason: string; message: string }> = [
      {
        name: 'the message, Invalid (422) without a reason',
        validation: { expression: "object.metadata.name != 'bad'", message: 'Denied' },
        code: 422,
        reason: 'Invalid',
        message: 'Denied',
      },
      {
        name: 'reason Forbidden is 403',
        validation: { expression: "object.metadata.name != 'bad'", message: 'Denied', reason: 'Forbidden' },
        code: 403,
        reason: 'Forbidden',
        message: 'Denied',
      },
      {
        name: 'reason RequestEntityTooLarge is 413',
        validation: { expression: "object.metadata.name != 'bad'", message: 'too big', reason: 'RequestEntityTooLarge' },
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: 'too big',
      },
      {
        name: 'without a message, failed expression: <expression>',
        validation: { expression: "  object.metadata.name != 'bad'  " },
        code: 422,
        reason: 'Invalid',
        message: "failed expression: object.metadata.name != 'bad'",
      },
      {
        name: 'the messageExpression before the message',
        validation: { expression: "object.metadata.name != 'bad'", message: 'I am overwritten', messageExpression: "'evaluated message for ' + object.metadata.name" },
        code: 422,
        reason: 'Invalid',
        message: 'evaluated message for bad',
      },
      {
        name: 'the message when the messageExpression fails',
        validation: { expression: "object.metadata.name != 'bad'", message: 'test1', messageExpression: 'object.data.missing' },
        code: 422,
        reason: 'Invalid',
        message: 'test1',
      },
      {
        name: 'the message when the messageExpression is blank or multi-line',
        validation: { expression: "object.metadata.name != 'bad'", message: 'I am not overwritten', messageExpression: "'line one\\nline two'" },
        code: 422,
        reason: 'Invalid',
        message: 'I am not overwritten',
      },
    ]
    for (const c of cases) {
      it(c.name, async () => {
        await policy('p', { validations: [c.validation] })
        await binding('b', 'p')
        const got = await refusal(world.plugin().validate(configMapAttributes('bad')))
        assert.deepEqual(got, {
          code: c.code,
          reason: c.reason,
          message: `configmaps "bad" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ${c.message}`,
        })
        assert.equal(await refusal(world.plugin().validate(configMapAttributes('good'))), undefined)
      })
    }

    it('carries the message as a cause of the Status', async () => {
      await policy('p', { validations: [{ expression: 'false', message: 'Denied' }] })
      await binding('b', 'p')
      const err = await world.plugin().validate(configMapAttributes('x')).catch((e: unknown) => e)
      const status = (err as { status: Obj }).status
      assert.deepEqual(status.details, { name: 'x', kind: 'configmaps', causes: [{ message: "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: Denied" }] })
    })

    it('the first denial in order: policies by name, then their validations', async () => {
      await policy('b-policy', { validations: [{ expression: 'false', message: 'Policy2Denied' }] })
      await policy('a-policy', { validations: [{ expression: 'true' }, { expression: 'false', message: 'Denied' }] })
      await binding('b1', 'a-policy')
      await binding('b2', 'b-policy')
      const got = await refusal(world.plugin().validate(configMapAttributes('x')))
      assert.equal(got?.message, `configmaps "x" is forbidden: ValidatingAdmissionPolicy 'a-policy' with binding 'b1' denied request: Denied`)
    })
  })

  describe('matching', () => {
    it('applies only to the kinds of matchConstraints and never to policies and bindings themselves', async () => {
      await policy('p', { validations: [{ expression: 'false' }] })
      await binding('b', 'p')
      const pod = configMapAttributes('web', {}, { kind: { group: '', version: 'v1', kind: 'Pod' }, resource: { group: '', version: 'v1', resource: 'pods' } })
      assert.equal(await refusal(world.plugin().validate(pod)), undefined)
      await world.policy('all', { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] })
      await binding('b-all', 'all')
      const bindingWrite = configMapAttributes('b3', {}, {
        namespace: '',
        kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' },
        resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings' },
      })
      assert.equal(await refusal(world.plugin().validate(bindingWrite)), undefined)
    })

    it('excludeResourceRules, resourceNames and the operations', async () => {
      await world.policy('p', {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], resourceNames: ['one', 'two'] }],
          excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'], resourceNames: ['two'] }],
        },
        validations: [{ expression: 'false', message: 'no' }],
      })
      await binding('b', 'p')
      assert.equal((await refusal(world.plugin().validate(configMapAttributes('one'))))?.code, 422)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('two'))), undefined)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('three'))), undefined)
      const update = configMapAttributes('one', {}, { operation: 'UPDATE' })
      assert.equal(await refusal(world.plugin().validate(update)), undefined)
    })

    it("the policy's and the binding's namespace and object selectors", async () => {
      await world.create('', 'v1', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } })
      await policy('p', { validations: [{ expression: 'false', message: 'no' }] })
      await binding('b', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } } })
      assert.equal((await refusal(world.plugin().validate(configMapAttributes('x', {}, { namespace: 'prod' }))))?.code, 422)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('x', {}, { namespace: 'default' }))), undefined)
      const unlabelled = configMapAttributes('x', {}, { namespace: 'prod' })
      ;(unlabelled.object!.metadata as Obj).labels = { app: 'db' }
      assert.equal(await refusal(world.plugin().validate(unlabelled)), undefined)
    })

    it('matchConditions: a false one skips the policy; an error refuses under Fail and skips under Ignore', async () => {
      await policy('p', {
        matchConditions: [{ name: 'is-web', expression: "object.metadata.name.startsWith('web')" }],
        validations: [{ expression: 'false', message: 'no' }],
      })
      await binding('b', 'p')
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('db'))), undefined)
      assert.equal((await refusal(world.plugin().validate(configMapAttributes('web-1'))))?.code, 422)
      await policy('q', { failurePolicy: 'Fail', matchConditions: [{ name: 'broken', expression: "object.data.missing == 'x'" }], validations: [{ expression: 'true' }] })
      await binding('bq', 'q')
      const got = await refusal(world.plugin().validate(configMapAttributes('db')))
      assert.equal(got?.message, `configmaps "db" is forbidden: ValidatingAdmissionPolicy 'q' with binding 'bq' denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing`)
    })
  })

  describe('validation actions', () => {
    it('Warn adds the warning and admits', async () => {
      await policy('p', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] })
      await binding('b', 'p', { validationActions: ['Warn'] })
      const attributes = configMapAttributes('x')
      assert.equal(await refusal(world.plugin().validate(attributes)), undefined)
      assert.deepEqual(attributes.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': I'm sorry Dave"])
    })

    it('Audit records validation_failure with every audited failure of the request', async () => {
      await policy('p1', { validations: [{ expression: 'false', message: "I'm sorry Dave" }] })
      await policy('p2', { validations: [{ expression: 'false', message: "I can't do that" }] })
      await binding('denybinding1.example.com', 'p1', { validationActions: ['Audit'] })
      await binding('denybinding2.example.com', 'p2', { validationActions: ['Audit'] })
      const attributes = configMapAttributes('x')
      assert.equal(await refusal(world.plugin().validate(attributes)), undefined)
      const value = JSON.parse(attributes.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? 'null')
      assert.deepEqual(value, [
        { message: "I'm sorry Dave", policy: 'p1', binding: 'denybinding1.example.com', expressionIndex: 0, validationActions: ['Audit'] },
        { message: "I can't do that", policy: 'p2', binding: 'denybinding2.example.com', expressionIndex: 0, validationActions: ['Audit'] },
      ])
    })

    it('Deny and Audit together', async () => {
      await policy('p', { validations: [{ expression: 'true' }, { expression: 'false', message: "I'm sorry Dave" }] })
      await binding('denybinding.example.com', 'p', { validationActions: ['Deny', 'Audit'] })
      const attributes = configMapAttributes('x')
      const got = await refusal(world.plugin().validate(attributes))
      assert.match(got?.message ?? '', /I'm sorry Dave$/)
      assert.equal(attributes.warnings, undefined)
      assert.deepEqual(JSON.parse(attributes.annotations!['validation.policy.admission.k8s.io/validation_failure']!), [
        { message: "I'm sorry Dave", policy: 'p', binding: 'denybinding.example.com', expressionIndex: 1, validationActions: ['Deny', 'Audit'] },
      ])
    })
  })

  describe('audit annotations', () => {
    it('publishes <policy>/<key>, trimmed; null and blank values are left out', async () => {
      await policy('p', {
        validations: [{ expression: 'true' }],
        auditAnnotations: [
          { key: 'name', valueExpression: "' ' + object.metadata.name + ' '" },
          { key: 'nothing', valueExpression: 'object.data.?nothing.orValue(null)' },
          { key: 'blank', valueExpression: "'  '" },
        ],
      })
      await binding('b', 'p')
      const attributes = configMapAttributes('web')
      await world.plugin().validate(attributes)
      assert.deepEqual(attributes.annotations, { 'p/name': 'web' })
    })

    it('an evaluation past the per-call cost limit is an error (cel-go cancels it), under Fail a refusal', async () => {
      // A string costs 0.1 per character to search (cel-go's string traversal cost): 11 million
      // characters cost 1,100,001, past the limit of 1,000,000; the search itself is quick.
      const data = { big: 'a'.repeat(11_000_000) }
      const expression = "!object.data.big.contains('b')"
      await policy('p', { validations: [{ expression }] })
      await binding('b', 'p')
      const got = await refusal(world.plugin().validate(configMapAttributes('web', data)))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('small', { big: 'aaa' }))), undefined)
    })

    it('expressions that together spend the runtime budget: the rest do not run', async () => {
      // Each search of 5 million characters costs 500,001, under the per-call limit; 25 of them exceed 10,000,000.
      const data = { big: 'a'.repeat(5_000_000) }
      const validations = Array.from({ length: 25 }, () => ({ expression: "!object.data.big.contains('b')" }))
      await policy('p', { validations })
      await binding('b', 'p')
      const got = await refusal(world.plugin().validate(configMapAttributes('web', data)))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: validation failed due to running out of cost budget, no further validation rules will be run`)
    })

    it('an annotation that fails refuses under Fail', async () => {
      await policy('p', { validations: [{ expression: 'true' }], auditAnnotations: [{ key: 'k', valueExpression: 'object.data.missing' }] })
      await binding('b', 'p')
      const got = await refusal(world.plugin().validate(configMapAttributes('web')))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.data.missing' resulted in error: no such key: missing`)
    })
  })

  describe('failurePolicy', () => {
    it('a configuration error is skipped under Ignore', async () => {
      await policy('p', { failurePolicy: 'Ignore', paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'false' }] })
      await binding('b', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } })
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('web'))), undefined)
    })

    it("an audit annotation of another type than string or null: the reference's message", async () => {
      await policy('p', { validations: [{ expression: 'true' }], auditAnnotations: [{ key: 'k', valueExpression: 'object.metadata.?labels.orValue(1)' }] })
      await binding('b', 'p')
      const attributes = configMapAttributes('web')
      ;(attributes.object!.metadata as Obj).labels = undefined
      const got = await refusal(world.plugin().validate(attributes))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: valueExpression 'object.metadata.?labels.orValue(1)' resulted in unsupported return type: int. Return type must be either string or null.`)
    })

    it('an expression error refuses under Fail, with the error as the message', async () => {
      await policy('p', { validations: [{ expression: "object.data.x == 'y'" }] })
      await binding('b', 'p')
      const got = await refusal(world.plugin().validate(configMapAttributes('web')))
      assert.deepEqual(got, {
        code: 422,
        reason: 'Invalid',
        message: `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.data.x == 'y'' resulted in error: no such key: x`,
      })
    })

    it('an expression error admits under Ignore', async () => {
      await policy('p', { failurePolicy: 'Ignore', validations: [{ expression: "object.data.x == 'y'" }] })
      await binding('b', 'p')
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('web'))), undefined)
    })

    it('a paramKind nothing serves is a configuration error of the policy', async () => {
      await policy('p', { paramKind: { apiVersion: 'example.com/v1', kind: 'BadParamKind' }, validations: [{ expression: 'false' }] })
      await binding('b', 'p', { paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } })
      const got = await refusal(world.plugin().validate(configMapAttributes('web')))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=BadParamKind'`)
    })
  })

  describe('params', () => {
    const paramPolicy = (spec: Obj = {}) =>
      policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        validations: [{ expression: 'object.metadata.name != params.data.forbidden', messageExpression: "'name ' + object.metadata.name + ' is forbidden by ' + params.metadata.name" }],
        ...spec,
      })

    it('paramRef.name in the request namespace, and the messageExpression over params', async () => {
      await param('rules', { forbidden: 'bad' })
      await paramPolicy()
      await binding('b', 'p', { paramRef: { name: 'rules', parameterNotFoundAction: 'Deny' } })
      const got = await refusal(world.plugin().validate(configMapAttributes('bad')))
      assert.equal(got?.message, `configmaps "bad" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: name bad is forbidden by rules`)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('good'))), undefined)
    })

    it('a missing param: Deny refuses, Allow admits', async () => {
      await paramPolicy()
      await binding('b', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } })
      const got = await refusal(world.plugin().validate(configMapAttributes('bad')))
      assert.equal(got?.message, "configmaps \"bad\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")
      await world.registry.registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings')!.delete(undefined, 'b')
      await binding('b2', 'p', { paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } })
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('bad'))), undefined)
    })

    it('paramRef.namespace, and a namespaced paramRef for a cluster-scoped request', async () => {
      await param('rules', { forbidden: 'bad' }, 'other')
      await world.policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps', 'namespaces'] }] },
        validations: [{ expression: 'object.metadata.name != params.data.forbidden', message: 'Denied by policy' }],
      })
      await binding('b', 'p', { paramRef: { name: 'rules', namespace: 'other', parameterNotFoundAction: 'Deny' } })
      assert.match((await refusal(world.plugin().validate(configMapAttributes('bad'))))?.message ?? '', /Denied by policy$/)
      await world.registry.registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings')!.delete(undefined, 'b')
      await binding('b2', 'p', { paramRef: { name: 'rules', parameterNotFoundAction: 'Deny' } })
      const namespace = configMapAttributes('bad', {}, {
        namespace: '',
        kind: { group: '', version: 'v1', kind: 'Namespace' },
        resource: { group: '', version: 'v1', resource: 'namespaces' },
        object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bad' } } as never,
      })
      const got = await refusal(world.plugin().validate(namespace))
      assert.equal(got?.message, `namespaces "bad" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b2' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources`)
    })

    it('paramRef.selector evaluates the policy once per selected param', async () => {
      await param('r1', { forbidden: 'bad' }, 'default', { rules: 'yes' })
      await param('r2', { forbidden: 'worse' }, 'default', { rules: 'yes' })
      await param('r3', { forbidden: 'good' }, 'default', { rules: 'no' })
      await paramPolicy()
      await binding('b', 'p', { paramRef: { selector: { matchLabels: { rules: 'yes' } }, parameterNotFoundAction: 'Deny' } })
      assert.match((await refusal(world.plugin().validate(configMapAttributes('worse'))))?.message ?? '', /forbidden by r2$/)
      assert.match((await refusal(world.plugin().validate(configMapAttributes('bad'))))?.message ?? '', /forbidden by r1$/)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('good'))), undefined)
    })
  })

  describe('variables and the request', () => {
    it('variables are computed on use and may use each other', async () => {
      await policy('p', {
        variables: [
          { name: 'name', expression: 'object.metadata.name' },
          { name: 'isBad', expression: "variables.name.startsWith('bad')" },
          { name: 'broken', expression: 'object.data.missing' },
        ],
        validations: [{ expression: '!variables.isBad', messageExpression: "variables.name + ' is bad'" }],
      })
      await binding('b', 'p')
      assert.match((await refusal(world.plugin().validate(configMapAttributes('bad-1'))))?.message ?? '', /denied request: bad-1 is bad$/)
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('good'))), undefined)
    })

    it('authorizer and authorizer.requestResource ask the server\'s authorizer as the requesting user', async () => {
      const asked: string[] = []
      world.init.authorizer = {
        authorize: (q) => {
          asked.push(`${q.user.name} ${q.verb} ${q.apiGroup}/${q.resource}/${q.subresource} ${q.namespace}/${q.name}`)
          return { decision: q.verb === 'create' || (q.resource === 'secrets' && q.user.name === 'root') ? 'allow' : 'noOpinion', reason: '' }
        },
      }
      await policy('p', {
        validations: [
          { expression: "authorizer.requestResource.check('create').allowed()", message: 'not allowed to create' },
          { expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get').allowed()", message: 'cannot read secrets' },
        ],
      })
      await binding('b', 'p')
      assert.match((await refusal(world.plugin().validate(configMapAttributes('web'))))?.message ?? '', /denied request: cannot read secrets$/)
      assert.deepEqual(asked, ['alice create /configmaps/ default/web', 'alice get /secrets/ default/'])
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('web', {}, { userInfo: { name: 'root', groups: [] } }))), undefined)
    })

    it('a failing variable fails the expression that reads it', async () => {
      await policy('p', { variables: [{ name: 'broken', expression: 'object.data.missing' }], validations: [{ expression: "variables.broken == 'x'" }] })
      await binding('b', 'p')
      const got = await refusal(world.plugin().validate(configMapAttributes('web')))
      assert.equal(got?.message, `configmaps "web" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'variables.broken == 'x'' resulted in error: composited variable "broken" fails to evaluate: no such key: missing`)
    })

    it('request, namespaceObject and oldObject', async () => {
      await world.policy('p', {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] }] },
        validations: [
          { expression: "request.operation == 'UPDATE' && request.userInfo.username == 'alice' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps'", message: 'request' },
          { expression: "namespaceObject.metadata.name == 'default'", message: 'namespace' },
          { expression: "oldObject.data.v != object.data.v", message: 'unchanged' },
        ],
      })
      await binding('b', 'p')
      const old = configMapAttributes('web', { v: '1' }).object
      assert.equal(await refusal(world.plugin().validate(configMapAttributes('web', { v: '2' }, { operation: 'UPDATE', oldObject: old! }))), undefined)
      const got = await refusal(world.plugin().validate(configMapAttributes('web', { v: '1' }, { operation: 'UPDATE', oldObject: old! })))
      assert.match(got?.message ?? '', /denied request: unchanged$/)
    })

    it('a change to a policy is in effect within a second', async () => {
      const plugin = world.plugin()
      await policy('p', { validations: [{ expression: 'true' }] })
      await binding('b', 'p')
      assert.equal(await refusal(plugin.validate(configMapAttributes('web'))), undefined)
      const store = world.registry.registry.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!
      await store.update(undefined, 'p', (stored) => ({ ...stored, spec: { ...(stored.spec as Obj), validations: [{ expression: 'false', message: 'changed' }] } }))
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.match((await refusal(plugin.validate(configMapAttributes('web'))))?.message ?? '', /changed$/)
    })
  })
})
