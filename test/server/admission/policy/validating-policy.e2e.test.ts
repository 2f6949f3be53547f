import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { KubectlSession } from '../../../support/kubectl-session.js'
import { describeEachKubectl } from '../../../support/kubectl-versions.js'

/**
 * ValidatingAdmissionPolicy in the server, driven by the real kubectl: a policy with a
 * ConfigMap paramKind and a binding whose param sets the replica limit denies a Deployment
 * with its messageExpression (kubectl prints the reference's Invalid status as `The deployments
 * "x" is invalid: : ValidatingAdmissionPolicy ...`), and a Warn binding lets it through with
 * kubectl's `Warning:` line; the status controller writes a policy's type-checking warnings.
 */
describeEachKubectl('admission: ValidatingAdmissionPolicy end to end', function (kubectl) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'adm-vap-', { waitFor: 'ready', kubectl: kubectl.tool })
  })
  after(async () => {
    await session?.close()
  })

  const policy = [
    'apiVersion: admissionregistration.k8s.io/v1',
    'kind: ValidatingAdmissionPolicy',
    'metadata: {name: replica-limit.example.com}',
    'spec:',
    '  failurePolicy: Fail',
    '  paramKind: {apiVersion: v1, kind: ConfigMap}',
    '  matchConstraints:',
    '    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]',
    '  variables:',
    '  - {name: limit, expression: "int(params.data.maxReplicas)"}',
    '  validations:',
    '  - expression: "object.spec.replicas <= variables.limit"',
    `    messageExpression: "'object.spec.replicas must be no greater than ' + string(variables.limit)"`,
    '    reason: Invalid',
    '',
  ].join('\n')

  const param = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: replica-limit, namespace: default}', 'data: {maxReplicas: "3"}', ''].join('\n')

  const binding = (name: string, action: string) =>
    [
      'apiVersion: admissionregistration.k8s.io/v1',
      'kind: ValidatingAdmissionPolicyBinding',
      `metadata: {name: ${name}}`,
      'spec:',
      '  policyName: replica-limit.example.com',
      `  validationActions: [${action}]`,
      '  paramRef: {name: replica-limit, namespace: default, parameterNotFoundAction: Deny}',
      '',
    ].join('\n')

  const deployment = (name: string, replicas: number) =>
    session.file(
      `${name}.yaml`,
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        `metadata: {name: ${name}}`,
        'spec:',
        `  replicas: ${replicas}`,
        `  selector: {matchLabels: {app: ${name}}}`,
        '  template:',
        `    metadata: {labels: {app: ${name}}}`,
        '    spec: {containers: [{name: c, image: nginx:1.27}]}',
        '',
      ].join('\n'),
    )

  /** Past the plugin's short-lived list of policies. */
  const settle = () => sleep(400)

  it('a Deny binding with a ConfigMap param refuses with the messageExpression', async () => {
    await session.ok('apply', '-f', session.file('param.yaml', param))
    await session.ok('apply', '-f', session.file('policy.yaml', policy))
    await session.ok('apply', '-f', session.file('deny.yaml', binding('replica-limit-deny', 'Deny')))
    await settle()
    const r = await session.run('create', '-f', deployment('big', 5))
    assert.notEqual(r.code, 0)
    assert.match(
      r.stderr,
      /The deployments "big" is invalid: : ValidatingAdmissionPolicy 'replica-limit\.example\.com' with binding 'replica-limit-deny' denied request: object\.spec\.replicas must be no greater than 3/,
    )
    await session.ok('create', '-f', deployment('small', 2))
  })

  it('without the param, parameterNotFoundAction Deny refuses', async () => {
    await session.ok('delete', 'configmap', 'replica-limit')
    await settle()
    const r = await session.run('create', '-f', deployment('other', 1))
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/)
    await session.ok('apply', '-f', session.file('param.yaml', param))
  })

  it('a Warn binding admits with the warning kubectl prints', async () => {
    await session.ok('delete', 'validatingadmissionpolicybinding', 'replica-limit-deny')
    await session.ok('apply', '-f', session.file('warn.yaml', binding('replica-limit-warn', 'Warn')))
    await settle()
    const r = await session.run('create', '-f', deployment('warned', 4))
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit\.example\.com' with binding 'replica-limit-warn': object\.spec\.replicas must be no greater than 3/)
  })

  it("the status shows the type checking of the policy's expressions against the matched kind", async () => {
    const typo = policy.replace('replica-limit.example.com', 'typo.example.com').replace('object.spec.replicas <= variables.limit', 'object.spec.replica <= variables.limit')
    await session.ok('apply', '-f', session.file('typo.yaml', typo))
    let status = ''
    for (let i = 0; i < 50 && !status.includes('expressionWarnings'); i++) {
      await sleep(100)
      status = await session.ok('get', 'validatingadmissionpolicy', 'typo.example.com', '-o', 'jsonpath={.status}')
    }
    const parsed = JSON.parse(status) as { observedGeneration: number; typeChecking: { expressionWarnings: Array<{ fieldRef: string; warning: string }> } }
    assert.equal(parsed.observedGeneration, 1)
    assert.equal(parsed.typeChecking.expressionWarnings[0]?.fieldRef, 'spec.validations[0].expression')
    assert.match(parsed.typeChecking.expressionWarnings[0]?.warning ?? '', /^apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'/)
    const good = await session.ok('get', 'validatingadmissionpolicy', 'replica-limit.example.com', '-o', 'jsonpath={.status}')
    assert.deepEqual(JSON.parse(good), { observedGeneration: 1, typeChecking: {} })
  })
})
