/**
 * A CRD's `x-kubernetes-validations` CEL rules end to end with the real kubectl: a CRD whose rule
 * does not compile is refused, a custom resource that breaks a rule is refused on create, and a
 * bad transition (a rule on `oldSelf`) on update, with the reference's texts
 * (apiextensions-apiserver `pkg/apiserver/schema/cel/validation.go`: `failed rule: <rule>` or
 * the rule's message, the object's value omitted; `compilation.go`: `compilation failed: ...`)
 * as kubectl prints a 422 (`The <Kind> "<name>" is invalid: <field>: <error>`).
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'

const crd = (rules: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.rules.example.com
spec:
  group: rules.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              minReplicas: {type: integer}
              name: {type: string}
            x-kubernetes-validations:
${rules}
`

const RULES = `            - rule: self.minReplicas <= self.replicas
            - rule: self.name == oldSelf.name
              message: name is immutable
`

const widget = (name: string, spec: string) => `apiVersion: rules.example.com/v1
kind: Widget
metadata:
  name: ${name}
  namespace: default
spec: ${spec}
`

describeEachKubectl('api: CRD validation rules (x-kubernetes-validations) with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'crd-rules-e2e-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  it('a CRD whose rule does not compile is refused', async () => {
    const r = await session.run('create', '-f', session.file('bad-crd.yaml', crd('            - rule: self.replicaz > 1\n')))
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr.trim(),
      'The CustomResourceDefinition "widgets.rules.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ' +
        `{"Rule":"self.replicaz \\u003e 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'\n | self.replicaz > 1\n | ....^`,
    )
  })

  it('a custom resource breaking a rule is refused on create; a bad transition on update', async () => {
    await session.ok('create', '-f', session.file('crd.yaml', crd(RULES)))
    await session.ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/widgets.rules.example.com')
    const bad = await session.run('create', '-f', session.file('bad.yaml', widget('w1', '{replicas: 1, minReplicas: 3, name: a}')))
    assert.equal(bad.code, 1)
    assert.equal(bad.stderr.trim(), 'The Widget "w1" is invalid: spec: Invalid value: failed rule: self.minReplicas <= self.replicas')

    assert.equal(await session.ok('create', '-f', session.file('good.yaml', widget('w1', '{replicas: 3, minReplicas: 1, name: a}'))), 'widget.rules.example.com/w1 created\n')
    const renamed = await session.run('patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"name":"b"}}')
    assert.equal(renamed.code, 1)
    assert.equal(renamed.stderr.trim(), 'The Widget "w1" is invalid: spec: Invalid value: name is immutable')
    assert.equal(await session.ok('patch', 'widget', 'w1', '--type=merge', '-p', '{"spec":{"replicas":4}}'), 'widget.rules.example.com/w1 patched\n')
  })
})
