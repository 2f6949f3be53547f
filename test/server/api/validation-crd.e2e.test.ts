/**
 * CustomResourceDefinition and custom resource validation through the real kubectl 1.35 (one
 * server for the file). The expected texts are kubectl's rendering (cmdutil.checkErr) of the
 * reference's messages: apiextensions-apiserver's `pkg/apis/apiextensions/validation` for CRDs
 * (a bad value that is a Go struct prints as JSON with Go's field names) and kube-openapi's
 * `pkg/validation` through `pkg/apiserver/validation` for custom resources.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
const version = (name: string) =>
  `{"Name":"${name}","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}`

const crd = (plural: string, kind: string, versions: string, extra = '') =>
  [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    `metadata: {name: ${plural}.example.com}`,
    'spec:',
    '  group: example.com',
    '  scope: Namespaced',
    `  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}${extra}}`,
    '  versions:',
    versions,
    '',
  ].join('\n')
const SCHEMA = '{openAPIV3Schema: {type: object, properties: {spec: {type: object, minProperties: 3, properties: {color: {type: string, enum: [red, blue]}, code: {type: string, pattern: "^[a-z]+$"}, size: {type: integer}}}}}}'

describe('api: CustomResourceDefinition and custom resource validation with the real kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-crd-', { waitFor: 'ready' })
  })
  after(async () => {
    await session?.close()
  })

  const apply = async (name: string, yaml: string) => session.run('apply', '-f', session.file(name, yaml))

  it('kubectl apply of a CRD with two storage versions and bad names', async () => {
    const r = await apply(
      'bad-crd.yaml',
      crd('widgets', 'Widget', '  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n  - {name: v2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}', ', listKind: Widget, shortNames: [1w]'),
    )
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "widgets.example.com" is invalid: \n' +
        `* spec.versions: Invalid value: [${version('v1')},${version('v2')}]: must have exactly one version marked as storage version\n` +
        `* spec.names.shortNames[0]: Invalid value: "1w": ${DNS1035}\n` +
        '* spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same\n' +
        '* status.storedVersions: Invalid value: ["v1"]: must have the storage version v2\n',
    )
    assert.equal((await session.run('get', 'crd', 'widgets.example.com')).code, 1)
  })

  it('kubectl apply of a CRD whose schema is not structural', async () => {
    const r = await apply('nonstructural.yaml', crd('gizmos', 'Gizmo', '  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {properties: {size: {type: integer}}}}}}}'))
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The CustomResourceDefinition "gizmos.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields\n')
  })

  it('kubectl apply of a custom resource violating minProperties, pattern and enum', async () => {
    assert.equal(await session.ok('apply', '-f', session.file('crd.yaml', crd('paints', 'Paint', `  - {name: v1, served: true, storage: true, schema: ${SCHEMA}}`))), 'customresourcedefinition.apiextensions.k8s.io/paints.example.com created\n')
    await session.ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/paints.example.com')
    const r = await apply('cr.yaml', 'apiVersion: example.com/v1\nkind: Paint\nmetadata: {name: p}\nspec: {color: purple, code: ABC}\n')
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The Paint "p" is invalid: \n' +
        '* spec: Invalid value: 2: spec in body should have at least 3 properties\n' +
        '* spec.code: Invalid value: "ABC": spec.code in body should match \'^[a-z]+$\'\n' +
        '* spec.color: Unsupported value: "purple": supported values: "red", "blue"\n',
    )
    const ok = await apply('cr-ok.yaml', 'apiVersion: example.com/v1\nkind: Paint\nmetadata: {name: p}\nspec: {color: red, code: abc, size: 1}\n')
    assert.equal(ok.code, 0, ok.stderr)
    assert.equal(ok.stdout, 'paint.example.com/p created\n')
  })

  it('an update removing a stored version is refused', async () => {
    const v1 = '  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}'
    const v2 = (storage: boolean) => `  - {name: v2, served: true, storage: ${storage}, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}`
    await session.ok('apply', '-f', session.file('sprockets.yaml', crd('sprockets', 'Sprocket', `${v1}\n${v2(false)}`)))
    await session.ok('wait', '--for', 'condition=established', '--timeout=30s', 'crd/sprockets.example.com')
    // v2 becomes the storage version: status.storedVersions is then [v1, v2]. kubectl apply sends
    // a strategic merge patch of a CRD, which the server applies with the CRD's typed schema.
    await session.ok('apply', '-f', session.file('sprockets.yaml', crd('sprockets', 'Sprocket', `${v1.replace('storage: true', 'storage: false')}\n${v2(true)}`)))
    const r = await session.run('replace', '-f', session.file('sprockets.yaml', crd('sprockets', 'Sprocket', v2(true))))
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The CustomResourceDefinition "sprockets.example.com" is invalid: status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions\n',
    )
  })
})
