/**
 * Object validation through the real kubectl 1.35 (one server for the file): `kubectl apply`
 * of invalid objects and `kubectl patch` of an immutable field print the reference's errors.
 * The expected texts are kubectl's rendering (cmdutil.checkErr) of the reference's messages
 * (`pkg/apis/apps/validation`, `pkg/apis/batch/validation`, `pkg/registry/apps/deployment/strategy.go`).
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

describe('api: object validation of the workload and other groups with the real kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-', { waitFor: 'ready' })
  })
  after(async () => {
    await session?.close()
  })

  const apply = async (name: string, yaml: string) => session.run('apply', '-f', session.file(name, yaml))

  it('kubectl apply of a Deployment with negative replicas', async () => {
    const r = await apply(
      'deploy.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: -1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n')
  })

  it('kubectl apply of a Deployment whose selector does not match its template: several causes', async () => {
    const r = await apply(
      'deploy2.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web2}\nspec:\n  minReadySeconds: -5\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: x}}\n    spec: {containers: [{name: c, image: nginx}]}\n',
    )
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The Deployment "web2" is invalid: \n* spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`\n* spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0\n',
    )
  })

  it('kubectl apply of a Job without a restart policy', async () => {
    const r = await apply('job.yaml', 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  template:\n    spec: {containers: [{name: c, image: busybox}]}\n')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Job "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"\n')
  })

  it('kubectl apply of a CronJob with a bad schedule', async () => {
    const r = await apply('cj.yaml', 'apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  schedule: "61 * * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The CronJob "c" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61\n')
  })

  it('a valid Job is created with its generated selector', async () => {
    const r = await apply('job-ok.yaml', 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: ok}\nspec:\n  template:\n    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n')
    assert.equal(r.code, 0, r.stderr)
    const job = JSON.parse(await session.ok('get', 'job', 'ok', '-o', 'json'))
    assert.deepEqual(Object.keys(job.spec.selector.matchLabels), ['batch.kubernetes.io/controller-uid'])
    assert.equal(job.spec.template.metadata.labels['job-name'], 'ok')
    assert.equal(job.spec.template.metadata.labels['batch.kubernetes.io/controller-uid'], job.metadata.uid)
  })

  it('kubectl patch of an immutable field: a Deployment selector (apps/v1)', async () => {
    await session.ok('create', 'deployment', 'imm', '--image=nginx')
    const r = await session.run('patch', 'deployment', 'imm', '--type=merge', '-p', '{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Deployment "imm" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"other"}}: field is immutable\n')
  })

  it('kubectl patch of an immutable field: a PriorityClass value', async () => {
    await session.ok('create', 'priorityclass', 'high', '--value=100')
    const r = await session.run('patch', 'priorityclass', 'high', '-p', '{"value":200}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The PriorityClass "high" is invalid: value: Forbidden: may not be changed in an update.\n')
  })

  it('kubectl patch of a Deployment to negative replicas', async () => {
    const r = await session.run('patch', 'deployment', 'imm', '-p', '{"spec":{"replicas":-1}}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Deployment "imm" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n')
  })
})
