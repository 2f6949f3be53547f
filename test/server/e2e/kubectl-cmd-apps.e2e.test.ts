/**
 * The reference's kubectl command tests for workloads (test/cmd/apps.sh in kubernetes/kubernetes:
 * run_deployment_tests, run_rs_tests, run_daemonset_tests, run_stateful_set_tests,
 * run_statefulset_history_tests) ported to kubectl 1.35 against `client cluster start`: the same
 * commands, fixtures (test/fixtures/kubectl-cmd/, SOURCE names their files and commits) and
 * checks, `kube::test::get_object_assert`'s go-templates (the field variables of
 * test/cmd/legacy-script.sh) and values, each in a namespace of its own as
 * `create_and_use_new_namespace` does. Where the script waits (`wait_object_assert`), so does
 * this; where it reads at once, the controllers' answer is waited for too (the reference's test
 * server runs no scheduler, our cluster runs everything). Left out: the describe checks (kubectl's
 * printer, covered elsewhere), `set env` from ConfigMaps and Secrets (client-side),
 * run_kubectl_apply_deployments_tests' null propagation (its second fixture was only available
 * in its extensions/v1beta1 form), and the DaemonSet history test (its rv2 fixture was only
 * available in its extensions/v1beta1 form).
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { openCluster } from '../../support/cluster.js'
import type { KubectlSession } from '../../support/kubectl-session.js'
import { until } from '../../support/until.js'

const FIXTURES = fileURLToPath(new URL('../../fixtures/kubectl-cmd/', import.meta.url))
const fixture = (name: string) => `${FIXTURES}${name}`

// test/cmd/legacy-script.sh's field variables.
const ID = '.metadata.name'
const ANNOTATIONS = '.metadata.annotations'
const IMAGE0 = '(index .spec.template.spec.containers 0).image'
const IMAGE1 = '(index .spec.template.spec.containers 1).image'
const CONTAINER_LEN = '(len .spec.template.spec.containers)'
const GENERATION = '.metadata.generation'
const REPLICAS = '.spec.replicas'
const OBSERVED_GENERATION = '.status.observedGeneration'
const POD_CONTAINER_NAME = '(index .spec.containers 0).name'
const HPA = '{{.spec.minReplicas}} {{.spec.maxReplicas}} {{(index .spec.metrics 0).resource.target.averageUtilization}}'
// hack/lib/test.sh / test/cmd/legacy-script.sh's images.
const IMAGE_DEPLOYMENT_R1 = 'registry.k8s.io/nginx:test-cmd'
const IMAGE_DEPLOYMENT_R2 = 'registry.k8s.io/nginx:1.7.9'
const IMAGE_PERL = 'registry.k8s.io/perl'
const IMAGE_STATEFULSET_R1 = 'registry.k8s.io/nginx-slim:0.7'
const IMAGE_STATEFULSET_R2 = 'registry.k8s.io/nginx-slim:0.8'
const IMAGE_PAUSE_V2 = 'registry.k8s.io/pause:2.0'

describe("cluster start: the reference's kubectl command tests for workloads (test/cmd/apps.sh, kubectl 1.35)", function () {
  this.timeout(240_000)
  let k: KubectlSession
  let ns = ''
  let nsCount = 0

  before(async function () {
    k = await openCluster(this, 'kubectl-cmd-apps-', { args: ['--nodes=2'] })
  })
  after(async () => k?.close())
  beforeEach(async () => {
    ns = `apps-cmd-${++nsCount}`
    await k.ok('create', 'namespace', ns)
  })

  const kubectl = (...args: string[]) => k.ok(...args, '-n', ns)
  const fails = async (...args: string[]) => {
    const r = await k.run(...args, '-n', ns)
    assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail; it printed ${r.stdout}`)
    return r.stderr + r.stdout
  }
  /** kube::test::get_object_assert: `kubectl get <object> -o go-template=<template>` equals `expected`. */
  const getAssert = async (object: string, template: string, expected: string) => {
    assert.equal(await kubectl('get', ...object.split(' '), '-o', `go-template=${template}`), expected, `${object} ${template}`)
  }
  /** kube::test::wait_object_assert: the same, retried until it holds (or matches, for a pattern). */
  const waitAssert = async (object: string, template: string, expected: string | RegExp, timeoutMs = 30_000) => {
    let last = ''
    const ok = (v: string) => (typeof expected === 'string' ? v === expected : expected.test(v))
    try {
      await until(`${object} ${template}`, async () => {
        last = await kubectl('get', ...object.split(' '), '-o', `go-template=${template}`)
        return ok(last) ? true : undefined
      }, timeoutMs, 200)
    } catch {
      assert.fail(`${object} ${template}: expected ${String(expected)}, last ${JSON.stringify(last)}`)
    }
  }
  const items = (field: string) => `{{range.items}}{{${field}}}:{{end}}`

  it('run_deployment_tests: rollback, pause and resume, restart, with their revisions', async () => {
    await kubectl('create', '-f', fixture('deployment-revision1.yaml'))
    await getAssert('deployment', items(ID), 'nginx:')
    await getAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R1}:`)
    // Rollback to revision 1 - should be no-op
    await waitAssert('rs', items(`index ${ANNOTATIONS} "deployment.kubernetes.io/revision"`), '1:')
    await kubectl('rollout', 'undo', 'deployment', 'nginx', '--to-revision=1')
    await getAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R1}:`)
    // Update the deployment (revision 2)
    await kubectl('apply', '-f', fixture('deployment-revision2.yaml'))
    await getAssert('deployment.apps', items(IMAGE0), `${IMAGE_DEPLOYMENT_R2}:`)
    await waitAssert('rs', items(`index ${ANNOTATIONS} "deployment.kubernetes.io/revision"`), /^(1:2:|2:1:)$/)
    // Rollback to revision 1 with dry-run - should be no-op
    assert.match(await kubectl('rollout', 'undo', 'deployment', 'nginx', '--dry-run=client'), /test-cmd/)
    await kubectl('rollout', 'undo', 'deployment', 'nginx', '--dry-run=server')
    await getAssert('deployment.apps', items(IMAGE0), `${IMAGE_DEPLOYMENT_R2}:`)
    // Rollback to revision 1
    await kubectl('rollout', 'undo', 'deployment', 'nginx', '--to-revision=1')
    await waitAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R1}:`)
    // Rollback to revision 1000000 - should be no-op
    await fails('rollout', 'undo', 'deployment', 'nginx', '--to-revision=1000000')
    await getAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R1}:`)
    // Rollback to last revision
    await waitAssert('deployment nginx', '{{.status.observedGeneration}}/{{.metadata.generation}}', /^(\d+)\/\1$/)
    await kubectl('rollout', 'undo', 'deployment', 'nginx')
    await waitAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R2}:`)
    // Pause the deployment: a paused deployment cannot be rolled back, nor restarted
    await waitAssert('deployment nginx', '{{.status.observedGeneration}}/{{.metadata.generation}}', /^(\d+)\/\1$/)
    await kubectl('rollout', 'pause', 'deployment', 'nginx')
    await fails('rollout', 'undo', 'deployment', 'nginx')
    await fails('rollout', 'restart', 'deployment', 'nginx')
    // Resume the deployment: it can now be rolled back
    await kubectl('rollout', 'resume', 'deployment', 'nginx')
    await kubectl('rollout', 'undo', 'deployment', 'nginx')
    // The new replica set has all old revisions stored in an annotation
    await waitAssert('deployment nginx', `{{index ${ANNOTATIONS} "deployment.kubernetes.io/revision"}}`, '5')
    const newRs = async () => (await kubectl('describe', 'deployment', 'nginx')).match(/^NewReplicaSet:\s+(\S+)/m)?.[1] ?? ''
    await waitAssert(`rs ${await newRs()}`, `{{index ${ANNOTATIONS} "deployment.kubernetes.io/revision-history"}}`, '1,3')
    // Watching the status of a superseded revision is an error
    await fails('rollout', 'status', 'deployment/nginx', '--revision=3')
    // Restarting the deployment creates a new replicaset
    await kubectl('rollout', 'restart', 'deployment/nginx')
    await until('a new ReplicaSet at revision 6', async () => ((await kubectl('get', 'rs', '-o', 'yaml', await newRs())).includes('deployment.kubernetes.io/revision: "6"') ? true : undefined), 30_000, 200)
    // Deployment has field for kubectl rollout field manager
    assert.match(await kubectl('get', 'deployment', 'nginx', '--show-managed-fields', '-o=jsonpath={.metadata.managedFields[*].manager}'), /kubectl-rollout/)
    // Create second deployment; deletion of both deployments is not blocked
    const second = readFileSync(fixture('deployment-revision1.yaml'), 'utf8').replace(/name: nginx$/m, 'name: nginx2')
    await kubectl('create', '-f', k.file('nginx2.yaml', second))
    await kubectl('delete', 'deployment', 'nginx2')
    await kubectl('delete', 'deployment', 'nginx')
  })

  it('run_deployment_tests: cascading deletion, orphaning, autoscale', async () => {
    await kubectl('create', '-f', fixture('user-guide-deployment.yaml'))
    await waitAssert('rs', `{{range.items}}{{${REPLICAS}}}{{end}}`, '3')
    // Deleting the deployment should delete the rs.
    await kubectl('delete', 'deployment', 'nginx-deployment', '--cascade')
    await waitAssert('rs', items(ID), '')
    // With --cascade=orphan the rs stays.
    await kubectl('create', 'deployment', 'nginx-deployment', '--image=registry.k8s.io/nginx:test-cmd')
    await waitAssert('rs', `{{range.items}}{{${REPLICAS}}}{{end}}`, '1')
    await kubectl('delete', 'deployment', 'nginx-deployment', '--cascade=orphan')
    await waitAssert('deployment', items(ID), '')
    await getAssert('rs', `{{range.items}}{{${REPLICAS}}}{{end}}`, '1')
    await kubectl('delete', 'rs', await kubectl('get', 'rs', '-o', `template={{range.items}}{{${ID}}}{{end}}`))
    // Auto scale deployment
    await kubectl('create', '-f', fixture('user-guide-deployment.yaml'))
    await kubectl('autoscale', 'deployment', 'nginx-deployment', '--dry-run=client', '--min=2', '--max=3')
    await kubectl('autoscale', 'deployment', 'nginx-deployment', '--dry-run=server', '--min=2', '--max=3')
    await getAssert('hpa', '{{range.items}}{{ if eq .metadata.name "nginx-deployment" }}found{{end}}{{end}}:', ':')
    await kubectl('autoscale', 'deployment', 'nginx-deployment', '--min=2', '--max=3')
    await getAssert('hpa nginx-deployment', HPA, '2 3 80')
    await kubectl('delete', 'hpa', 'nginx-deployment')
    await kubectl('delete', 'deployment.apps', 'nginx-deployment')
  })

  it('run_deployment_tests: set image by name, --all, file, --local and *', async () => {
    const images = async (first: string, second: string) => {
      await getAssert('deployment', items(IMAGE0), `${first}:`)
      await getAssert('deployment', items(IMAGE1), `${second}:`)
    }
    await kubectl('create', '-f', fixture('deployment-multicontainer.yaml'))
    await getAssert('deployment', items(ID), 'nginx-deployment:')
    await images(IMAGE_DEPLOYMENT_R1, IMAGE_PERL)
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `nginx=${IMAGE_DEPLOYMENT_R2}`, '--dry-run=client')
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `nginx=${IMAGE_DEPLOYMENT_R2}`, '--dry-run=server')
    await images(IMAGE_DEPLOYMENT_R1, IMAGE_PERL)
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `nginx=${IMAGE_DEPLOYMENT_R2}`)
    await images(IMAGE_DEPLOYMENT_R2, IMAGE_PERL)
    // Set non-existing container should fail
    await fails('set', 'image', 'deployment', 'nginx-deployment', 'redis=redis')
    await kubectl('set', 'image', 'deployments', '--all', `nginx=${IMAGE_DEPLOYMENT_R1}`)
    await images(IMAGE_DEPLOYMENT_R1, IMAGE_PERL)
    await kubectl('set', 'image', '-f', fixture('deployment-multicontainer.yaml'), `nginx=${IMAGE_DEPLOYMENT_R2}`)
    await images(IMAGE_DEPLOYMENT_R2, IMAGE_PERL)
    // Set image of a local file without talking to the server
    await kubectl('set', 'image', '-f', fixture('deployment-multicontainer.yaml'), `nginx=${IMAGE_DEPLOYMENT_R1}`, '--local', '-o', 'yaml')
    await images(IMAGE_DEPLOYMENT_R2, IMAGE_PERL)
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `*=${IMAGE_DEPLOYMENT_R1}`)
    await images(IMAGE_DEPLOYMENT_R1, IMAGE_DEPLOYMENT_R1)
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `*=${IMAGE_DEPLOYMENT_R1}`)
    await images(IMAGE_DEPLOYMENT_R1, IMAGE_DEPLOYMENT_R1)
    await kubectl('delete', 'deployment', 'nginx-deployment')
  })

  it('run_kubectl_apply_deployments_tests: a conflicting apply, --force --overwrite, and an invalid one restored', async () => {
    await kubectl('apply', '-f', fixture('deployment-label-change1.yaml'))
    await getAssert('deployment nginx', `{{${ID}}}`, 'nginx')
    // apply deployment with new labels and a conflicting resourceVersion
    assert.match(await fails('apply', '-f', fixture('deployment-label-change2.yaml')), /Error from server \(Conflict\)/)
    // apply deployment with --force and --overwrite will succeed
    await kubectl('apply', '-f', fixture('deployment-label-change2.yaml'), '--overwrite=true', '--force=true', '--grace-period=10')
    assert.match(await kubectl('apply', 'view-last-applied', 'deploy/nginx', '-o', 'json'), /"name": "nginx2"/)
    // conflicting and invalid: the old object is restored and the validation error printed
    assert.match(await fails('apply', '-f', fixture('deployment-label-change3.yaml'), '--force'), /Invalid value/)
    await getAssert('deployment nginx', '{{.spec.template.metadata.labels.name}}', 'nginx2')
    await kubectl('delete', 'deployments', '--all', '--grace-period=10')
  })

  it('run_rs_tests: deletion with and without orphaning, scale, set commands, autoscale', async () => {
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await kubectl('delete', 'rs', 'frontend')
    await waitAssert('pods -l tier=frontend', items(ID), '')
    // With --cascade=orphan the pods remain.
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await waitAssert('pods -l tier=frontend', items(POD_CONTAINER_NAME), 'php-redis:php-redis:php-redis:')
    await kubectl('delete', 'rs', 'frontend', '--cascade=orphan')
    await waitAssert('rs', items(ID), '')
    await getAssert('pods -l tier=frontend', items(POD_CONTAINER_NAME), 'php-redis:php-redis:php-redis:')
    await kubectl('delete', 'pods', '-l', 'tier=frontend')
    await waitAssert('pods', items(ID), '')
    // Scale with current-replicas and replicas
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '3')
    await kubectl('scale', '--dry-run=client', '--current-replicas=3', '--replicas=2', 'replicasets', 'frontend')
    await kubectl('scale', '--dry-run=server', '--current-replicas=3', '--replicas=2', 'replicasets', 'frontend')
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '3')
    await kubectl('scale', '--current-replicas=3', '--replicas=2', 'replicasets', 'frontend')
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '2')
    await kubectl('delete', 'rs', 'frontend')
    // Set commands move the generation
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await getAssert('rs frontend', `{{${GENERATION}}}`, '1')
    await kubectl('set', 'image', 'rs/frontend', '*=k8s.gcr.io/pause:test-cmd')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '2')
    await kubectl('set', 'env', 'rs/frontend', 'foo=bar')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '3')
    await kubectl('set', 'resources', 'rs/frontend', '--dry-run=client', '--limits=cpu=200m,memory=512Mi')
    await kubectl('set', 'resources', 'rs/frontend', '--dry-run=server', '--limits=cpu=200m,memory=512Mi')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '3')
    await kubectl('set', 'resources', 'rs/frontend', '--limits=cpu=200m,memory=512Mi')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '4')
    await kubectl('set', 'serviceaccount', 'rs/frontend', '--dry-run=client', 'serviceaccount1')
    await kubectl('set', 'serviceaccount', 'rs/frontend', '--dry-run=server', 'serviceaccount1')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '4')
    await kubectl('set', 'serviceaccount', 'rs/frontend', 'serviceaccount1')
    await getAssert('rs frontend', `{{${GENERATION}}}`, '5')
    assert.match(await kubectl('get', 'rs', 'frontend', '--show-managed-fields', '-o=jsonpath={.metadata.managedFields[*].manager}'), /kubectl-set/)
    await kubectl('delete', 'rs', 'frontend')
    // Auto scale replica set
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await kubectl('autoscale', '-f', fixture('frontend-replicaset.yaml'), '--max=2', '--cpu-percent=70')
    await getAssert('hpa frontend', HPA, '1 2 70')
    await kubectl('delete', 'hpa', 'frontend')
    await kubectl('autoscale', 'rs', 'frontend', '--min=2', '--max=3')
    await getAssert('hpa frontend', HPA, '2 3 80')
    assert.match(await kubectl('get', 'hpa', 'frontend', '-o=jsonpath={.metadata.managedFields[*].manager}'), /kubectl-autoscale/)
    await kubectl('delete', 'hpa', 'frontend')
    await fails('autoscale', 'rs', 'frontend')
    await kubectl('delete', 'rs', 'frontend')
  })

  it('run_daemonset_tests: template generation through apply, set and rollout restart', async () => {
    await kubectl('apply', '-f', fixture('rollingupdate-daemonset.yaml'))
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '1')
    await kubectl('apply', '-f', fixture('rollingupdate-daemonset.yaml'))
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '1')
    await kubectl('set', 'image', 'daemonsets/bind', '*=k8s.gcr.io/pause:test-cmd')
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '2')
    await kubectl('set', 'env', 'daemonsets/bind', 'foo=bar')
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '3')
    await kubectl('set', 'resources', 'daemonsets/bind', '--limits=cpu=200m,memory=512Mi')
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '4')
    assert.match(await kubectl('get', 'daemonsets', 'bind', '--show-managed-fields', '-o=jsonpath={.metadata.managedFields[*].manager}'), /kubectl-set/)
    await kubectl('rollout', 'restart', 'daemonset/bind')
    await getAssert('daemonsets bind', `{{${GENERATION}}}`, '5')
    await kubectl('delete', '-f', fixture('rollingupdate-daemonset.yaml'))
  })

  it('run_stateful_set_tests: scale with current-replicas, observed generation, rollout restart', async () => {
    await kubectl('create', '-f', fixture('rollingupdate-statefulset.yaml'))
    await getAssert('statefulset nginx', `{{${REPLICAS}}}`, '0')
    await waitAssert('statefulset nginx', `{{${OBSERVED_GENERATION}}}`, '1')
    await kubectl('scale', '--current-replicas=0', '--replicas=1', 'statefulset', 'nginx')
    await getAssert('statefulset nginx', `{{${REPLICAS}}}`, '1')
    await waitAssert('statefulset nginx', `{{${OBSERVED_GENERATION}}}`, '2')
    // wait-for-pods-with-label "app=nginx-statefulset" "nginx-0"
    await waitAssert('pods -l app=nginx-statefulset', `{{range.items}}{{${ID}}}{{end}}`, 'nginx-0')
    await kubectl('rollout', 'restart', 'statefulset', 'nginx')
    await waitAssert('statefulset nginx', `{{${OBSERVED_GENERATION}}}`, '3')
    await kubectl('delete', '-f', fixture('rollingupdate-statefulset.yaml'))
    await waitAssert('pods -l app=nginx-statefulset', `{{range.items}}{{${ID}}}{{end}}`, '')
  })

  it('run_statefulset_history_tests: rollout undo through controller revisions', async () => {
    await kubectl('apply', '-f', fixture('rollingupdate-statefulset.yaml'), '--record')
    await waitAssert('controllerrevisions', items(ANNOTATIONS), /rollingupdate-statefulset\.yaml --record/)
    // Rollback to revision 1 - should be no-op
    await kubectl('rollout', 'undo', 'statefulset', '--to-revision=1')
    await getAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R1}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // Update the statefulset (revision 2)
    await kubectl('apply', '-f', fixture('rollingupdate-statefulset-rv2.yaml'), '--record')
    await waitAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R2}:`)
    await waitAssert('statefulset', items(IMAGE1), `${IMAGE_PAUSE_V2}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    await waitAssert('controllerrevisions', items(ANNOTATIONS), /rollingupdate-statefulset-rv2\.yaml --record/)
    // Rollback to revision 1 with dry-run - should be no-op
    await kubectl('rollout', 'undo', 'statefulset', '--dry-run=client')
    await kubectl('rollout', 'undo', 'statefulset', '--dry-run=server')
    await getAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R2}:`)
    await getAssert('statefulset', items(IMAGE1), `${IMAGE_PAUSE_V2}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    // Rollback to revision 1
    await kubectl('rollout', 'undo', 'statefulset', '--to-revision=1')
    await waitAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R1}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // Rollback to revision 1000000 - should fail
    assert.match(await fails('rollout', 'undo', 'statefulset', '--to-revision=1000000'), /unable to find specified revision/)
    await getAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R1}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // Rollback to last revision
    await waitAssert('controllerrevisions', `{{len .items}}`, '2')
    await kubectl('rollout', 'undo', 'statefulset')
    await waitAssert('statefulset', items(IMAGE0), `${IMAGE_STATEFULSET_R2}:`)
    await waitAssert('statefulset', items(IMAGE1), `${IMAGE_PAUSE_V2}:`)
    await getAssert('statefulset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    await kubectl('delete', '-f', fixture('rollingupdate-statefulset-rv2.yaml'))
    await waitAssert('pods -l app=nginx-statefulset', `{{range.items}}{{${ID}}}{{end}}`, '')
  })
})
