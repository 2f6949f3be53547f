/**
 * `client validate`'s inputs and options, in process: a kustomization (-k), CRDs given apart
 * (--crd), standard input, documents' positions, --emulated-version checked by the server's
 * own rules for the flag. The texts checked are the reference's (validation messages, kubectl's
 * mapping error); which objects are refused is what each case sets up.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ValidateFlags, ValidateUsageError, runValidate } from '../../../src/server/offline/run-validate.js'

const CORPUS = new URL('../../fixtures/validate/', import.meta.url)

interface Run {
  exit: number
  out: string
  report: { objects: Array<{ source: string; document: number; line?: number; kind?: string; name?: string; namespace?: string; valid: boolean; error?: string; warnings: string[] }> }
}

async function validate(cwd: string, flags: Partial<ValidateFlags>, stdin = ''): Promise<Run> {
  let out = ''
  const exit = await runValidate(
    { filename: [], crd: [], policy: [], namespace: 'default', output: 'json', warningsAsErrors: false, ...flags },
    { cwd, readStdin: async () => stdin, out: (t) => (out += t), err: () => {}, tool: { name: 'client', version: '0' } },
  )
  return { exit, out, report: JSON.parse(out) }
}

const deployment = (name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: app
        image: nginx:1.27
`

describe('client validate: inputs and options', function () {
  this.timeout(60_000)
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'validate-test-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('-k: the kustomization namespace and name prefix are in what the server checks', async () => {
    mkdirSync(join(dir, 'app'))
    writeFileSync(join(dir, 'app', 'kustomization.yaml'), 'resources: [ns.yaml, web.yaml]\nnamespace: shop\nnamePrefix: dev-\ncommonLabels:\n  tier: web\n')
    writeFileSync(join(dir, 'app', 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n')
    writeFileSync(join(dir, 'app', 'web.yaml'), `${deployment('web', 2)}---\n${deployment('bad', -1)}`)
    const run = await validate(dir, { kustomize: 'app' })
    const [ns, web, bad] = run.report.objects
    assert.deepEqual([ns!.name, ns!.valid], ['shop', true])
    assert.deepEqual([web!.name, web!.namespace, web!.valid, web!.source, web!.document], ['dev-web', 'shop', true, 'app', 2])
    assert.equal(bad!.error, 'The Deployment "dev-bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    assert.equal(run.exit, 1)
  })

  it('--crd: custom resources are checked against a CRD given apart, whose own report comes first', async () => {
    const crd = readFileSync(new URL('context/widgets-crd.yaml', CORPUS), 'utf8')
    writeFileSync(join(dir, 'crd.yaml'), crd)
    writeFileSync(join(dir, 'w.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  min: 5\n  max: 1\n')
    const run = await validate(dir, { filename: ['w.yaml'], crd: ['crd.yaml'] })
    assert.deepEqual(run.report.objects.map((o) => [o.source, o.valid]), [['crd.yaml', true], ['w.yaml', false]])
    assert.equal(run.report.objects[1]!.error, 'The Widget "w" is invalid: spec: Invalid value: min must not be greater than max')
    const without = await validate(dir, { filename: ['w.yaml'] })
    assert.equal(
      without.report.objects[0]!.error,
      'error: resource mapping not found for name: "w" namespace: "" from "w.yaml": no matches for kind "Widget" in version "example.com/v1"\nensure CRDs are installed first',
    )
  })

  it('-f -: standard input, named STDIN; documents numbered from 1 with the line each starts on', async () => {
    const run = await validate(dir, { filename: ['-'] }, `# leading comment\n${deployment('a', 1)}---\n\n${deployment('b', -3)}`)
    assert.deepEqual(
      run.report.objects.map((o) => [o.source, o.document, o.line, o.valid]),
      [
        ['STDIN', 1, 2, true],
        ['STDIN', 2, 21, false],
      ],
    )
  })

  it('a binding whose role neither the input nor the default policy holds: a warning with the NotFound the server gives a creator who may not escalate', async () => {
    const binding = (name: string, kind: string, role: string) =>
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ${kind === 'RoleBinding' && role !== 'view' ? 'Role' : 'ClusterRole'}\n  name: ${role}\nsubjects:\n- kind: User\n  name: jane\n  apiGroup: rbac.authorization.k8s.io\n`
    const role = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\nrules:\n- apiGroups: [""]\n  resources: [pods]\n  verbs: [get]\n'
    writeFileSync(
      join(dir, 'rbac.yaml'),
      [binding('to-missing', 'RoleBinding', 'missing'), binding('to-later-role', 'RoleBinding', 'reader'), binding('to-view', 'RoleBinding', 'view'), binding('to-missing-cluster', 'ClusterRoleBinding', 'nowhere'), role].join('---\n'),
    )
    const run = await validate(dir, { filename: ['rbac.yaml'] })
    assert.equal(run.exit, 0)
    const warned = run.report.objects.map((o) => [o.name, o.warnings.length])
    assert.deepEqual(warned, [['to-missing', 1], ['to-later-role', 0], ['to-view', 0], ['to-missing-cluster', 1], ['reader', 0]])
    // The reference's NotFound text for the lookup of the role (GetRoleReferenceRules).
    assert.match(run.report.objects[0]!.warnings[0]!, /roles\.rbac\.authorization\.k8s\.io "missing" not found/)
    assert.match(run.report.objects[3]!.warnings[0]!, /clusterroles\.rbac\.authorization\.k8s\.io "nowhere" not found/)
  })

  it("-R as kubectl's: a directory's files only without it, its subdirectories too with it", async () => {
    mkdirSync(join(dir, 'app', 'nested'), { recursive: true })
    writeFileSync(join(dir, 'app', 'top.yaml'), deployment('top', 1))
    writeFileSync(join(dir, 'app', 'nested', 'deep.yaml'), deployment('deep', -1))
    const flat = await validate(dir, { filename: ['app'] })
    assert.deepEqual(flat.report.objects.map((o) => [o.source, o.name]), [[join('app', 'top.yaml'), 'top']])
    assert.equal(flat.exit, 0)
    const deep = await validate(dir, { filename: ['app'], recursive: true })
    assert.deepEqual(deep.report.objects.map((o) => [o.source, o.name]), [[join('app', 'nested', 'deep.yaml'), 'deep'], [join('app', 'top.yaml'), 'top']])
    assert.equal(deep.exit, 1)
  })

  it('--emulated-version: the kinds of that release only; a version the server refuses is a usage error', async () => {
    writeFileSync(join(dir, 'vac.yaml'), 'apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata:\n  name: fast\ndriverName: csi.example.com\nparameters:\n  iops: "3000"\n')
    assert.equal((await validate(dir, { filename: ['vac.yaml'] })).exit, 0)
    const old = await validate(dir, { filename: ['vac.yaml'], emulatedVersion: '1.33' })
    assert.match(old.report.objects[0]!.error!, /no matches for kind "VolumeAttributesClass" in version "storage.k8s.io\/v1"/)
    await assert.rejects(validate(dir, { filename: ['vac.yaml'], emulatedVersion: '1.20' }), ValidateUsageError)
  })

  it('a missing path is a usage error with kubectl\'s text', async () => {
    await assert.rejects(validate(dir, { filename: ['nope.yaml'] }), { message: 'the path "nope.yaml" does not exist' })
  })
})
