import assert from 'node:assert/strict'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { describeEachKubectl, requestLogged } from '../../support/kubectl-versions.js'

const DEPLOYMENT = (extra: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    'spec:',
    extra,
    '  replicas: 1',
    '  selector:',
    '    matchLabels: {app: web}',
    '  template:',
    '    metadata:',
    '      labels: {app: web}',
    '    spec:',
    '      containers: [{name: c, image: nginx}]',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n')

describeEachKubectl('api: discovery, OpenAPI and field validation with the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-discovery-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)

  it('api-resources and api-versions read the aggregated discovery (no per-group-version requests)', async () => {
    // -v=6 logs every request kubectl makes; with legacy discovery it would also GET /api/v1 and /apis/<g>/<v>.
    const resources = await kubectl('api-resources', '-v=6')
    assert.equal(resources.code, 0, resources.stderr)
    assert.match(resources.stdout, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m)
    assert.match(resources.stdout, /^jobs\s+batch\/v1\s+true\s+Job$/m)
    assert.match(resources.stdout, /^pods\s+po\s+v1\s+true\s+Pod$/m)
    assert.match(resources.stderr, requestLogged('GET', '/apis\\?timeout=32s'))
    assert.doesNotMatch(resources.stderr, requestLogged('GET', '/(api/v1|apis/apps/v1)\\?timeout[^"\\s]*', '[^"\\n]*'))
    const versions = await kubectl('api-versions', '-v=6')
    assert.equal(versions.code, 0, versions.stderr)
    assert.match(versions.stdout, /^apps\/v1$/m)
    assert.match(versions.stdout, /^batch\/v1$/m)
    assert.match(versions.stdout, /^v1$/m)
    assert.doesNotMatch(versions.stderr, /\/apis\/apps\/v1\?timeout/)
  })

  it('explain reads the OpenAPI v3 schemas', async () => {
    const replicas = await ok('explain', 'deployment.spec.replicas')
    assert.match(replicas, /^GROUP:\s+apps$/m)
    assert.match(replicas, /^KIND:\s+Deployment$/m)
    assert.match(replicas, /^FIELD: replicas <integer>$/m)
    assert.match(replicas, /Number of desired pods/)
    const podSpec = await ok('explain', 'pod.spec')
    assert.match(podSpec, /^FIELD: spec <PodSpec>$/m)
    assert.match(podSpec, /^ {2}containers\t<\[\]Container> -required-$/m)
  })

  it('create -f with an unknown field: strict by default, a warning with --validate=warn, silent with --validate=false', async () => {
    const path = session.file('x.yaml', DEPLOYMENT('  foo: 1'))
    const strict = await kubectl('create', '-f', path)
    assert.equal(strict.code, 1)
    assert.equal(
      strict.stderr,
      `Error from server (BadRequest): error when creating "${path}": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"\n`,
    )
    const warn = await kubectl('create', '-f', path, '--validate=warn')
    assert.equal(warn.code, 0, warn.stderr)
    assert.equal(warn.stdout, 'deployment.apps/web created\n')
    assert.equal(warn.stderr, 'Warning: unknown field "spec.foo"\n')
    // The unknown field is not stored.
    assert.equal(JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json')).spec.foo, undefined)
    await ok('delete', 'deploy', 'web')
    const ignore = await kubectl('create', '-f', path, '--validate=false')
    assert.equal(ignore.code, 0, ignore.stderr)
    assert.equal(ignore.stderr, '')
    await ok('delete', 'deploy', 'web')
  })

  it('duplicate fields of a raw JSON body are strict decoding errors too', async () => {
    const body = session.file(
      'dup.json',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"},"foo":1}',
    )
    const r = await kubectl('create', '--raw', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', '-f', body)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'Error from server (BadRequest): ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data", unknown field "foo"\n',
    )
  })

  it('a value of the wrong type is the decoder error whatever the validation', async () => {
    const path = session.file('bad.yaml', DEPLOYMENT('').replace('replicas: 1', 'replicas: "one"'))
    for (const validate of ['--validate=strict', '--validate=false']) {
      const r = await kubectl('create', '-f', path, validate)
      assert.equal(r.code, 1)
      assert.equal(
        r.stderr,
        `Error from server (BadRequest): error when creating "${path}": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32\n`,
      )
    }
  })

  it('apply -f creates, then patches with the OpenAPI strategic merge information', async () => {
    const path = session.file('web.yaml', DEPLOYMENT(''))
    assert.equal(await ok('apply', '-f', path), 'deployment.apps/web created\n')
    session.file('web.yaml', DEPLOYMENT('').replace('replicas: 1', 'replicas: 2').replace('image: nginx', 'image: nginx:2'))
    const applied = await kubectl('apply', '-f', path)
    assert.equal(applied.code, 0, applied.stderr)
    assert.equal(applied.stdout, 'deployment.apps/web configured\n')
    assert.equal(applied.stderr, '')
    const spec = JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json')).spec
    assert.equal(spec.replicas, 2)
    assert.deepEqual(
      spec.template.spec.containers.map((c: { name: string; image: string }) => [c.name, c.image]),
      [['c', 'nginx:2']],
    )
    // On an existing object the unknown field comes through the patch: the reference's 422 quoting the patch as Go prints it.
    session.file('web.yaml', DEPLOYMENT('  foo: 1').replace('replicas: 1', 'replicas: 2').replace('image: nginx', 'image: nginx:2'))
    const strict = await kubectl('apply', '-f', path)
    assert.equal(strict.code, 1)
    assert.match(strict.stderr, /^The request is invalid: patch: Invalid value: "map\[metadata:map\[annotations:map\[kubectl\.kubernetes\.io\/last-applied-configuration:/)
    assert.match(strict.stderr, / spec:map\[foo:1\]\]": strict decoding error: unknown field "spec\.foo"\n$/)
    // kubectl patch sends no fieldValidation: the reference's default is Warn.
    const patched = await kubectl('patch', 'deploy', 'web', '-p', '{"spec":{"bar":1}}')
    assert.equal(patched.code, 0, patched.stderr)
    assert.equal(patched.stdout, 'deployment.apps/web patched (no change)\n')
    assert.equal(patched.stderr, 'Warning: unknown field "spec.bar"\n')
    // A wrong type through a strategic merge patch: the unstructured converter's words; through a merge patch, the JSON decoder's.
    const strategic = await kubectl('patch', 'deploy', 'web', '-p', '{"spec":{"replicas":"x"}}')
    assert.equal(strategic.code, 1)
    assert.equal(strategic.stderr, 'The request is invalid: patch: Invalid value: "map[spec:map[replicas:x]]": cannot convert string to int32\n')
    const merge = await kubectl('patch', 'deploy', 'web', '--type=merge', '-p', '{"spec":{"replicas":"x"}}')
    assert.equal(merge.code, 1)
    assert.match(merge.stderr, /^The request is invalid: patch: Invalid value: "\{.*": json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32\n$/)
  })
})

const CRONTAB_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
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
            required: [cronSpec]
            properties:
              cronSpec: {type: string, pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', description: The cron schedule.}
              image: {type: string}
              replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
`

describeEachKubectl('api: custom resources with schemas and the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-cr-schema-', { waitFor: 'ready', kubectl: client.tool })
    await session.ok('apply', '-f', session.file('crd.yaml', CRONTAB_CRD))
  })
  after(async () => {
    await session?.close()
  })

  it('discovery, OpenAPI and explain include the custom resource', async () => {
    assert.match(await session.ok('api-resources'), /^crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab$/m)
    const explained = await session.ok('explain', 'crontab.spec.cronSpec')
    assert.match(explained, /^FIELD: cronSpec <string>$/m)
    assert.match(explained, /The cron schedule\./)
  })

  it('unknown fields are strict errors, pruned otherwise; defaults are applied', async () => {
    const path = session.file('ct.yaml', 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c1}\nspec: {cronSpec: "* * * * */5", image: x, foo: 1}\n')
    const strict = await session.run('create', '-f', path)
    assert.equal(strict.code, 1)
    assert.equal(
      strict.stderr,
      `Error from server (BadRequest): error when creating "${path}": CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.foo"\n`,
    )
    const warn = await session.run('create', '-f', path, '--validate=warn')
    assert.equal(warn.code, 0, warn.stderr)
    assert.equal(warn.stderr, 'Warning: unknown field "spec.foo"\n')
    assert.deepEqual(JSON.parse(await session.ok('get', 'ct', 'c1', '-o', 'json')).spec, { cronSpec: '* * * * */5', image: 'x', replicas: 1 })
  })

  it('schema violations are 422 Invalid with the reference causes', async () => {
    const path = session.file('bad.yaml', 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c2}\nspec: {cronSpec: "bad", replicas: 20}\n')
    const r = await session.run('create', '-f', path)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      [
        'The CronTab "c2" is invalid: ',
        `* spec.cronSpec: Invalid value: "bad": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'`,
        '* spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10',
        '',
      ].join('\n'),
    )
    const missing = await session.run('create', '-f', session.file('missing.yaml', 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c3}\nspec: {replicas: "x"}\n'))
    assert.equal(missing.code, 1)
    assert.equal(
      missing.stderr,
      // The object validator reports its properties' errors before the required ones.
      'The CronTab "c3" is invalid: \n* spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n* spec.cronSpec: Required value\n',
    )
  })
})

describeEachKubectl('api: --runtime-config with the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-runtime-config-', { waitFor: 'ready', args: ['--runtime-config=batch/v1=false'], kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  it('batch/v1=false: no jobs in discovery, and its paths are not routed', async () => {
    const resources = await session.ok('api-resources')
    assert.doesNotMatch(resources, /^jobs\s/m)
    assert.doesNotMatch(resources, /^cronjobs\s/m)
    assert.match(resources, /^deployments\s+deploy\s+apps\/v1/m)
    assert.doesNotMatch(await session.ok('api-versions'), /^batch\/v1$/m)
    const jobs = await session.run('get', 'jobs')
    assert.equal(jobs.code, 1)
    assert.equal(jobs.stderr, 'error: the server doesn\'t have a resource type "jobs"\n')
    const raw = await session.run('get', '--raw', '/apis/batch/v1/namespaces/default/jobs')
    assert.equal(raw.code, 1)
    assert.match(raw.stderr, /the server could not find the requested resource/)
    assert.doesNotMatch(await session.ok('get', '--raw', '/openapi/v3'), /apis\/batch\/v1/)
  })
})

describeEachKubectl('api: beta and alpha group versions by --runtime-config and --feature-gates with the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-runtime-beta-', {
      waitFor: 'ready',
      args: ['--runtime-config=resource.k8s.io/v1beta2=true,coordination.k8s.io/v1beta1=true,storagemigration.k8s.io/v1beta1=true', '--feature-gates=CoordinatedLeaderElection=true'],
      kubectl: client.tool,
    })
  })
  after(async () => {
    await session?.close()
  })

  it('serves the switched-on versions (a gated one only with its gate), sharing the objects of the GA version', async () => {
    const versions = await session.ok('api-versions')
    assert.match(versions, /^resource\.k8s\.io\/v1beta2$/m)
    assert.match(versions, /^coordination\.k8s\.io\/v1beta1$/m)
    assert.doesNotMatch(versions, /^resource\.k8s\.io\/v1beta1$/m)
    // StorageVersionMigrator is off: its group version has nothing to serve.
    assert.doesNotMatch(versions, /^storagemigration\.k8s\.io/m)
    assert.match(await session.ok('api-resources'), /^leasecandidates\s+coordination\.k8s\.io\/v1beta1\s+true\s+LeaseCandidate$/m)
    const group = JSON.parse(await session.ok('get', '--raw', '/apis/resource.k8s.io')) as { preferredVersion: { version: string }; versions: Array<{ version: string }> }
    assert.equal(group.preferredVersion.version, 'v1')
    assert.deepEqual(group.versions.map((v) => v.version), ['v1', 'v1beta2'])

    const file = session.file('deviceclass.yaml', 'apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: gpu\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == "gpu.example.com"\n')
    assert.equal(await session.ok('create', '-f', file), 'deviceclass.resource.k8s.io/gpu created\n')
    const v1 = JSON.parse(await session.ok('get', 'deviceclasses.v1.resource.k8s.io', 'gpu', '-o', 'json')) as { apiVersion: string; spec: unknown }
    assert.equal(v1.apiVersion, 'resource.k8s.io/v1')
    assert.deepEqual(v1.spec, { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] })
    const beta = JSON.parse(await session.ok('get', '--raw', '/apis/resource.k8s.io/v1beta2/deviceclasses/gpu')) as { apiVersion: string }
    assert.equal(beta.apiVersion, 'resource.k8s.io/v1beta2')

    const candidate = session.file(
      'candidate.yaml',
      'apiVersion: coordination.k8s.io/v1beta1\nkind: LeaseCandidate\nmetadata:\n  name: c1\nspec:\n  leaseName: scheduler\n  binaryVersion: 1.35.0\n  emulationVersion: 1.35.0\n  strategy: OldestEmulationVersion\n',
    )
    assert.equal(await session.ok('create', '-f', candidate), 'leasecandidate.coordination.k8s.io/c1 created\n')
    assert.match(await session.ok('get', 'leasecandidates'), /^c1\s/m)
  })
})
