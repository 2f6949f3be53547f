/**
 * The estimated cost of a CRD's `x-kubernetes-validations` end to end with the real kubectl: a
 * regex over every item of a list of strings without maxItems or maxLength is refused when the
 * CRD is created, with the reference's messages (apiextensions-apiserver validation.go:
 * `estimated rule cost exceeds budget by factor of ...`, the rule's share of the schema's total
 * and the total), and the same CRD is accepted once the list and its strings are bounded.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'

const crd = (bounds: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.cost.example.com
spec:
  group: cost.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
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
              names:
                type: array
                ${bounds.includes('maxItems') ? 'maxItems: 64' : ''}
                items:
                  type: string
                  ${bounds.includes('maxLength') ? 'maxLength: 63' : ''}
                x-kubernetes-validations:
                - rule: self.all(x, x.matches('^[a-z]+$'))
                  message: names are lower-case letters
`

const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)'
const RULE = 'spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule'

describeEachKubectl('api: the estimated cost of CRD validation rules with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'crd-rule-cost-e2e-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  it('refuses an unbounded rule at create, and accepts it once maxItems and maxLength bound it', async () => {
    const refused = await session.run('create', '-f', session.file('unbounded.yaml', crd('')))
    assert.equal(refused.code, 1)
    assert.equal(
      refused.stderr.trim(),
      'The CustomResourceDefinition "gadgets.cost.example.com" is invalid: \n' +
        `* ${RULE}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}\n` +
        `* ${RULE}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema\n` +
        `* spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
    )

    // maxItems alone still leaves each string as long as a request.
    const itemsOnly = await session.run('create', '-f', session.file('items-only.yaml', crd('maxItems')))
    assert.equal(itemsOnly.code, 1)
    assert.match(itemsOnly.stderr, /estimated rule cost exceeds budget by factor of/)

    assert.equal(await session.ok('create', '-f', session.file('bounded.yaml', crd('maxItems maxLength'))), 'customresourcedefinition.apiextensions.k8s.io/gadgets.cost.example.com created\n')
    await session.ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/gadgets.cost.example.com')
    const gadget = (names: string) => `apiVersion: cost.example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec: {names: ${names}}\n`
    const bad = await session.run('create', '-f', session.file('bad.yaml', gadget('[abc, Abc]')))
    assert.equal(bad.code, 1)
    assert.equal(bad.stderr.trim(), 'The Gadget "g1" is invalid: spec.names: Invalid value: names are lower-case letters')
    assert.equal(await session.ok('create', '-f', session.file('good.yaml', gadget('[abc, def]'))), 'gadget.cost.example.com/g1 created\n')
  })
})
