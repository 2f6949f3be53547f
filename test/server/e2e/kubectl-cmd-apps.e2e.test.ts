/**
 * The reference's kubectl command tests for workloads (test/cmd/apps.sh in kubernetes/kubernetes:
 * run_deployment_tests, run_kubectl_apply_deployments_tests, run_rs_tests, run_daemonset_tests,
 * run_daemonset_history_tests, run_stateful_set_tests, run_statefulset_history_tests) ported to
 * kubectl 1.35 against `client cluster start`: the same commands, fixtures
 * (test/fixtures/kubectl-cmd/, SOURCE names their files and commits) and checks,
 * `kube::test::get_object_assert`'s go-templates (the field variables of
 * test/cmd/legacy-script.sh), hack/lib/test.sh's describe and if_has_string helpers, each part
 * in a namespace of its own as `create_and_use_new_namespace` does. Where the script waits
 * (`wait_object_assert`), so does this; where it reads at once, the controllers' answer is waited
 * for too (the reference's test-cmd runs the controller manager beside a scheduler-less server,
 * our cluster runs everything and its timing differs). Every part of those functions is here;
 * the dry-run lines the older parts of this file already hold are not repeated.
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
const CONTAINER_NAME = '(index .spec.template.spec.containers 0).name'
const PORT_NAME = '(index .spec.ports 0).name'
const PORT = '(index .spec.ports 0).port'
const HPA = '{{.spec.minReplicas}} {{.spec.maxReplicas}} {{(index .spec.metrics 0).resource.target.averageUtilization}}'
// hack/lib/test.sh / test/cmd/legacy-script.sh's images.
const IMAGE_DEPLOYMENT_R1 = 'registry.k8s.io/nginx:test-cmd'
const IMAGE_DEPLOYMENT_R2 = 'registry.k8s.io/nginx:1.7.9'
const IMAGE_PERL = 'registry.k8s.io/perl'
const IMAGE_STATEFULSET_R1 = 'registry.k8s.io/nginx-slim:0.7'
const IMAGE_STATEFULSET_R2 = 'registry.k8s.io/nginx-slim:0.8'
const IMAGE_PAUSE_V2 = 'registry.k8s.io/pause:2.0'
const IMAGE_DAEMONSET_R2 = 'registry.k8s.io/pause:latest'
const IMAGE_DAEMONSET_R2_2 = 'registry.k8s.io/nginx:test-cmd'
// rollingupdate-daemonset.yaml's image where the script says IMAGE_PAUSE_V2 (see the fixtures' SOURCE).
const IMAGE_DAEMONSET_R1 = 'registry.k8s.io/pause:3.8'

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

  // The namespace goes first: after a `--` it would be part of a container's command.
  const kubectl = (...args: string[]) => k.ok('-n', ns, ...args)
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
  /** kube::test::if_has_string / if_has_not_string: grep's basic pattern, here a plain substring. */
  const has = (output: string, match: string) => assert.ok(output.includes(match), `has not: ${match}\nmessage: ${output}`)
  const hasNot = (output: string, match: string) => assert.ok(!output.includes(match), `has: ${match}\nmessage: ${output}`)
  /** kube::test::describe_object_assert and describe_resource_assert: every match is in `kubectl describe <what>`. */
  const describeAssert = async (what: string, ...matches: string[]) => {
    const result = await kubectl('describe', ...what.split(' '))
    for (const match of matches) has(result, match)
  }
  /**
   * kube::test::describe_object_events_assert and describe_resource_events_assert: the events
   * section ("No events." or "Events:") is there exactly when `showEvents` is (undefined: no flag).
   */
  const describeEventsAssert = async (what: string, showEvents?: boolean) => {
    const flag = showEvents === undefined ? [] : [`--show-events=${showEvents}`]
    const result = await kubectl('describe', ...flag, ...what.split(' '))
    assert.equal(/No events\.|Events:/.test(result), showEvents ?? true, result)
  }
  /**
   * kube::test::describe_resource_chunk_size_assert: `describe <resource> -v=6` lists the resource
   * and each of `additional` with limit=500, and with --chunk-size=10 lists the resource with limit=10.
   */
  const describeChunkSizeAssert = async (resource: string, additional: string) => {
    const verbose = async (...flags: string[]) => {
      const r = await k.run('describe', resource, ...flags, '-v=6', '-n', ns)
      assert.equal(r.code, 0, r.stderr)
      return r.stderr
    }
    const defaultResult = await verbose('--show-events=true')
    for (const r of [resource, ...additional.split(',')]) assert.match(defaultResult, new RegExp(`${r}\\?.*limit=500`), `no limit on ${r}`)
    assert.match(await verbose('--show-events=false', '--chunk-size=10'), new RegExp(`${resource}\\?limit=10`))
  }

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
    // Describe command should respect the chunk size parameter
    await describeChunkSizeAssert('horizontalpodautoscalers', 'events')
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

  it('run_kubectl_apply_deployments_tests: apply propagates user-defined null values', async () => {
    await getAssert('deployments', items(ID), '')
    await getAssert('replicasets', items(ID), '')
    await getAssert('pods', items(ID), '')
    // apply base deployment
    await kubectl('apply', '-f', fixture('null-propagation/deployment-l1.yaml'))
    await getAssert('deployments my-depl', `{{${ID}}}`, 'my-depl')
    await getAssert('deployments my-depl', '{{.spec.template.metadata.labels.l1}}', 'l1')
    await getAssert('deployments my-depl', '{{.spec.selector.matchLabels.l1}}', 'l1')
    await getAssert('deployments my-depl', '{{.metadata.labels.l1}}', 'l1')
    // apply new deployment with new template labels
    await kubectl('apply', '-f', fixture('null-propagation/deployment-l2.yaml'))
    await getAssert('deployments my-depl', '{{.spec.template.metadata.labels.l1}}', 'l1')
    await getAssert('deployments my-depl', '{{.spec.selector.matchLabels.l1}}', 'l1')
    await getAssert('deployments my-depl', '{{.metadata.labels.l1}}', '<no value>')
    // need to explicitly remove replicasets and pods because we changed the deployment selector and orphaned things
    await kubectl('delete', 'deployments,rs,pods', '--all', '--cascade=orphan', '--grace-period=0')
    await waitAssert('deployments', items(ID), '')
    await waitAssert('replicasets', items(ID), '')
    // The script reads the pods at once: its test server runs no controllers, ours may still be
    // finishing the orphaned ReplicaSet's pods when the delete returns, so this waits.
    await waitAssert('pods', items(ID), '')
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

  it('run_deployment_tests: create deployment, apps endpoints, describe, a command, a UnixUserID', async () => {
    // Test kubectl create deployment (using default - old generator)
    await kubectl('create', 'deployment', 'test-nginx-extensions', '--image=registry.k8s.io/nginx:test-cmd')
    await getAssert('deploy test-nginx-extensions', `{{${CONTAINER_NAME}}}`, 'nginx')
    hasNot(await kubectl('get', 'deployment.apps/test-nginx-extensions', '-o', 'jsonpath={.spec.revisionHistoryLimit}'), '2')
    has(await kubectl('get', 'deployment.apps', '-o=jsonpath={.items[0].apiVersion}'), 'apps/v1')
    await kubectl('delete', 'deployment', 'test-nginx-extensions')
    // Test kubectl create deployment
    await kubectl('create', 'deployment', 'test-nginx-apps', '--image=registry.k8s.io/nginx:test-cmd')
    await getAssert('deploy test-nginx-apps', `{{${CONTAINER_NAME}}}`, 'nginx')
    has(await kubectl('get', 'deployment/test-nginx-apps', '-o', 'jsonpath={.spec.revisionHistoryLimit}'), '10')
    has(await kubectl('get', 'deployment.apps', '-o=jsonpath={.items[0].apiVersion}'), 'apps/v1')
    // The script's test server runs no controllers, yet its rs and pods checks find objects only
    // because the controller manager of test-cmd runs; here they are waited for.
    await waitAssert('rs', items(ID), /^test-nginx-apps-[a-z0-9]+:$/)
    await waitAssert('pods', items(ID), /^test-nginx-apps-[a-z0-9]+-[a-z0-9]+:$/)
    // Describe command (resource only) should print detailed information
    await describeAssert('rs', 'Name:', 'Pod Template:', 'Labels:', 'Selector:', 'Controlled By', 'Replicas:', 'Pods Status:', 'Volumes:')
    await describeAssert('pods', 'Name:', 'Image:', 'Node:', 'Labels:', 'Status:', 'Controlled By')
    // Describe command should respect the chunk size parameter
    await describeChunkSizeAssert('deployments', 'replicasets,events')
    await kubectl('delete', 'deployment', 'test-nginx-apps')
    // Test kubectl create deployment with image and command
    await getAssert('deployment', items(ID), '')
    await kubectl('create', 'deployment', 'nginx-with-command', '--dry-run=client', '--image=registry.k8s.io/nginx:test-cmd', '--', '/bin/sleep', 'infinity')
    await kubectl('create', 'deployment', 'nginx-with-command', '--dry-run=server', '--image=registry.k8s.io/nginx:test-cmd', '--', '/bin/sleep', 'infinity')
    await getAssert('deployment', items(ID), '')
    await kubectl('create', 'deployment', 'nginx-with-command', '--image=registry.k8s.io/nginx:test-cmd', '--', '/bin/sleep', 'infinity')
    await getAssert('deploy nginx-with-command', `{{${CONTAINER_NAME}}}`, 'nginx')
    await kubectl('delete', 'deployment', 'nginx-with-command')
    // Test kubectl create deployment should not fail validation
    await getAssert('deployment', items(ID), '')
    await kubectl('create', '-f', fixture('deployment-with-UnixUserID.yaml'))
    await getAssert('deployment', items(ID), 'deployment-with-unixuserid:')
    await kubectl('delete', 'deployment', 'deployment-with-unixuserid')
  })

  it('run_deployment_tests: set env from a ConfigMap and a Secret', async () => {
    await kubectl('create', '-f', fixture('deployment-multicontainer.yaml'))
    await kubectl('create', '-f', fixture('configmap.yaml'))
    await kubectl('create', '-f', fixture('secret.yaml'))
    await getAssert('deployment', items(ID), 'nginx-deployment:')
    await getAssert('configmaps/test-set-env-config', `{{${ID}}}`, 'test-set-env-config')
    await getAssert('secret', items(ID), 'test-set-env-secret:')
    const env0 = '{{ len (index .spec.template.spec.containers 0).env }}'
    // Set env of deployments by configmap from keys
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--keys=key-2', '--from=configmap/test-set-env-config')
    await getAssert('deploy nginx-deployment', '{{ (index (index .spec.template.spec.containers 0).env 0).name}}', 'KEY_2')
    await getAssert('deploy nginx-deployment', env0, '1')
    // Dry-run set env
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--dry-run=client', '--from=configmap/test-set-env-config')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--dry-run=server', '--from=configmap/test-set-env-config')
    await getAssert('deploy nginx-deployment', env0, '1')
    // Set env of deployments by configmap
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--from=configmap/test-set-env-config')
    await getAssert('deploy nginx-deployment', env0, '2')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', 'env=prod')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', 'superenv=superprod', '-c=nginx')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--keys=username', '--from=secret/test-set-env-secret')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', '--from=secret/test-set-env-secret')
    await kubectl('set', 'env', 'deployment', 'nginx-deployment', 'env-')
    // Standard input cannot be used for both the resource and the environment variables
    const r = await k.runWithInput('SOME_ENV_VAR_KEY=SOME_ENV_VAR_VAL\n', 'set', 'env', '-f', '-', '-', '-n', ns)
    has(r.stdout + r.stderr, 'standard input cannot be used for multiple arguments')
    await kubectl('delete', 'deployment', 'nginx-deployment')
    await kubectl('delete', 'configmap', 'test-set-env-config')
    await kubectl('delete', 'secret', 'test-set-env-secret')
  })

  it('run_deployment_tests: rollout history', async () => {
    await kubectl('create', '-f', fixture('deployment-multicontainer.yaml'))
    await getAssert('deployment', items(ID), 'nginx-deployment:')
    await getAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R1}:`)
    await getAssert('deployment', items(IMAGE1), `${IMAGE_PERL}:`)
    // The script's controller manager has made revision 1's ReplicaSet by the time it sets the
    // image (its checks run for seconds); this waits for it, or the next template is revision 1.
    await waitAssert('rs', items(`index ${ANNOTATIONS} "deployment.kubernetes.io/revision"`), '1:')
    await kubectl('set', 'image', 'deployment', 'nginx-deployment', `nginx=${IMAGE_DEPLOYMENT_R2}`)
    await getAssert('deployment', items(IMAGE0), `${IMAGE_DEPLOYMENT_R2}:`)
    await getAssert('deployment', items(IMAGE1), `${IMAGE_PERL}:`)
    await waitAssert('rs', `{{len .items}}`, '2')
    // Get rollout history
    let history = await kubectl('rollout', 'history', 'deployment', 'nginx-deployment')
    for (const s of ['deployment.apps/nginx-deployment', 'REVISION  CHANGE-CAUSE', '1         <none>', '2         <none>']) has(history, s)
    hasNot(history, '3         <none>')
    // Get rollout history for a single revision
    history = await kubectl('rollout', 'history', 'deployment', 'nginx-deployment', '--revision=1')
    for (const s of ['deployment.apps/nginx-deployment with revision #1', 'Pod Template:', IMAGE_DEPLOYMENT_R1, IMAGE_PERL]) has(history, s)
    history = await kubectl('rollout', 'history', 'deployment', 'nginx-deployment', '--revision=2')
    for (const s of ['deployment.apps/nginx-deployment with revision #2', 'Pod Template:', IMAGE_DEPLOYMENT_R2, IMAGE_PERL]) has(history, s)
    await kubectl('delete', 'deployment', 'nginx-deployment')
  })

  it('run_rs_tests: describe, scale --all and --selector, expose, several at once', async () => {
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await getAssert('rs', items(ID), 'frontend:')
    // Describe command should print detailed information
    await describeAssert('rs frontend', 'Name:', 'Pod Template:', 'Labels:', 'Selector:', 'Replicas:', 'Pods Status:', 'Volumes:')
    // Describe command should print events information by default, not with show-events=false
    await describeEventsAssert('rs frontend')
    await describeEventsAssert('rs frontend', false)
    await describeEventsAssert('rs frontend', true)
    // Describe command (resource only) should print detailed information
    await describeAssert('rs', 'Name:', 'Pod Template:', 'Labels:', 'Selector:', 'Replicas:', 'Pods Status:', 'Volumes:')
    await describeEventsAssert('rs', true)
    await describeEventsAssert('rs', false)
    await describeEventsAssert('rs', true)
    // The pods' describe needs the pods the script's controller manager has made by now.
    await waitAssert('pods -l tier=frontend', items(POD_CONTAINER_NAME), 'php-redis:php-redis:php-redis:')
    await describeAssert('pods', 'Name:', 'Image:', 'Node:', 'Labels:', 'Status:', 'Controlled By')
    // Describe command should respect the chunk size parameter
    await describeChunkSizeAssert('replicasets', 'pods,events')
    // Scale replica set frontend with current-replicas and replicas
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '3')
    await kubectl('scale', '--current-replicas=3', '--replicas=2', 'replicasets', 'frontend')
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '2')
    // Set up three deploy, two deploy have same label
    for (const n of [1, 2, 3]) await kubectl('create', '-f', fixture(`scale-deploy-${n}.yaml`))
    const replicas = async (one: string, two: string, three: string) => {
      await getAssert('deploy scale-1', '{{.spec.replicas}}', one)
      await getAssert('deploy scale-2', '{{.spec.replicas}}', two)
      await getAssert('deploy scale-3', '{{.spec.replicas}}', three)
    }
    await replicas('1', '1', '1')
    // Test kubectl scale --all with dry run
    await kubectl('scale', 'deploy', '--replicas=3', '--all', '--dry-run=client')
    await kubectl('scale', 'deploy', '--replicas=3', '--all', '--dry-run=server')
    await replicas('1', '1', '1')
    // Test kubectl scale --selector
    await kubectl('scale', 'deploy', '--replicas=2', '-l', 'run=hello')
    await replicas('2', '2', '1')
    // Test kubectl scale --all
    await kubectl('scale', 'deploy', '--replicas=3', '--all')
    await replicas('3', '3', '3')
    await kubectl('delete', 'rs', 'frontend')
    await kubectl('delete', 'deploy', 'scale-1', 'scale-2', 'scale-3')
    // Expose replica set as service
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await getAssert('rs frontend', `{{${REPLICAS}}}`, '3')
    await kubectl('expose', 'rs', 'frontend', '--port=80')
    await getAssert('service frontend', `{{${PORT_NAME}}} {{${PORT}}}`, '<no value> 80')
    await kubectl('delete', 'service', 'frontend')
    await kubectl('delete', 'rs', 'frontend')
    await getAssert('rs', items(ID), '')
    // Create two replica sets, delete them at once
    await kubectl('create', '-f', fixture('frontend-replicaset.yaml'))
    await kubectl('create', '-f', fixture('redis-slave-replicaset.yaml'))
    await getAssert('rs', items(ID), 'frontend:redis-slave:')
    await kubectl('delete', 'rs', 'frontend', 'redis-slave')
    await getAssert('rs', items(ID), '')
  })

  it('run_daemonset_history_tests: rollout history and undo through controller revisions', async () => {
    await getAssert('daemonsets', items(ID), '')
    // Create a DaemonSet (revision 1)
    await kubectl('apply', '-f', fixture('rollingupdate-daemonset.yaml'), '--record')
    await waitAssert('controllerrevisions', items(ANNOTATIONS), /rollingupdate-daemonset\.yaml --record/)
    // Rollback to revision 1 - should be no-op
    await kubectl('rollout', 'undo', 'daemonset', '--to-revision=1')
    await getAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R1}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // Update the DaemonSet (revision 2)
    await kubectl('apply', '-f', fixture('rollingupdate-daemonset-rv2.yaml'), '--record')
    await waitAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R2}:`)
    await waitAssert('daemonset', items(IMAGE1), `${IMAGE_DAEMONSET_R2_2}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    await waitAssert('controllerrevisions', items(ANNOTATIONS), /rollingupdate-daemonset-rv2\.yaml --record/)
    // Get rollout history
    let history = await kubectl('rollout', 'history', 'daemonset')
    for (const s of ['daemonset.apps/bind', 'REVISION  CHANGE-CAUSE', '1         kubectl apply', '2         kubectl apply']) has(history, s)
    history = await kubectl('rollout', 'history', 'daemonset', '--revision=1')
    for (const s of ['daemonset.apps/bind with revision #1', 'Pod Template:', IMAGE_DAEMONSET_R1]) has(history, s)
    history = await kubectl('rollout', 'history', 'daemonset', '--revision=2')
    for (const s of ['daemonset.apps/bind with revision #2', 'Pod Template:', IMAGE_DAEMONSET_R2, IMAGE_DAEMONSET_R2_2]) has(history, s)
    // Rollback to revision 1 with dry-run - should be no-op
    await kubectl('rollout', 'undo', 'daemonset', '--dry-run=client')
    await kubectl('rollout', 'undo', 'daemonset', '--dry-run=server')
    await getAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R2}:`)
    await getAssert('daemonset', items(IMAGE1), `${IMAGE_DAEMONSET_R2_2}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    // Rollback to revision 1
    await kubectl('rollout', 'undo', 'daemonset', '--to-revision=1')
    await waitAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R1}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // The controller renumbers revision 1 as 3 when it sees the rolled-back template.
    await waitAssert('controllerrevisions', `{{range.items}}{{.revision}}:{{end}}`, /^(2:3:|3:2:)$/)
    history = await kubectl('rollout', 'history', 'daemonset')
    for (const s of ['daemonset.apps/bind', 'REVISION  CHANGE-CAUSE', '2         kubectl apply', '3         kubectl apply']) has(history, s)
    // Rollback to revision 1000000 - should fail
    assert.match(await fails('rollout', 'undo', 'daemonset', '--to-revision=1000000'), /unable to find specified revision/)
    await getAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R1}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '1')
    // Rollback to last revision
    await kubectl('rollout', 'undo', 'daemonset')
    await waitAssert('daemonset', items(IMAGE0), `${IMAGE_DAEMONSET_R2}:`)
    await waitAssert('daemonset', items(IMAGE1), `${IMAGE_DAEMONSET_R2_2}:`)
    await getAssert('daemonset', `{{range.items}}{{${CONTAINER_LEN}}}{{end}}`, '2')
    await waitAssert('controllerrevisions', `{{range.items}}{{.revision}}:{{end}}`, /^(3:4:|4:3:)$/)
    history = await kubectl('rollout', 'history', 'daemonset')
    for (const s of ['daemonset.apps/bind', 'REVISION  CHANGE-CAUSE', '3         kubectl apply', '4         kubectl apply']) has(history, s)
    await kubectl('delete', '-f', fixture('rollingupdate-daemonset.yaml'))
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
    // Describe command should respect the chunk size parameter
    await describeChunkSizeAssert('statefulsets', 'pods,events')
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
    // Get rollout history
    let history = await kubectl('rollout', 'history', 'statefulset')
    for (const s of ['statefulset.apps/nginx', 'REVISION  CHANGE-CAUSE', '1         kubectl apply', '2         kubectl apply']) has(history, s)
    // Get rollout history for a single revision
    history = await kubectl('rollout', 'history', 'statefulset', '--revision=1')
    for (const s of ['statefulset.apps/nginx with revision #1', 'Pod Template:', IMAGE_STATEFULSET_R1]) has(history, s)
    // Get rollout history for a different single revision
    history = await kubectl('rollout', 'history', 'statefulset', '--revision=2')
    for (const s of ['statefulset.apps/nginx with revision #2', 'Pod Template:', IMAGE_STATEFULSET_R2, IMAGE_PAUSE_V2]) has(history, s)
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
    // Get rollout history
    history = await kubectl('rollout', 'history', 'statefulset')
    for (const s of ['statefulset.apps/nginx', 'REVISION  CHANGE-CAUSE', '2         kubectl apply', '3         kubectl apply']) has(history, s)
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
    // Get rollout history
    history = await kubectl('rollout', 'history', 'statefulset')
    for (const s of ['statefulset.apps/nginx', 'REVISION  CHANGE-CAUSE', '3         kubectl apply', '4         kubectl apply']) has(history, s)
    await kubectl('delete', '-f', fixture('rollingupdate-statefulset-rv2.yaml'))
    await waitAssert('pods -l app=nginx-statefulset', `{{range.items}}{{${ID}}}{{end}}`, '')
  })
})
