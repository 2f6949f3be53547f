import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

/**
 * kubectl 1.27 and 1.28 fetch the OpenAPI v2 document in protobuf only, and fail `apply` when it
 * is not served (406 then `/swagger-2.0.0.pb-v1` 404 ends in NotFound); explain's v2 output finds
 * a kind through the document's x-kubernetes-group-version-kind. These runs check that
 * /openapi/v2 answers in the form they decode.
 */
const DEPLOYMENT = (image: string, second: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: a
        image: ${image}
        ports: [{containerPort: 80}]
      - name: ${second}
        image: busybox:1
`

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
              cronSpec: {type: string}
              replicas: {type: integer}
`

for (const version of ['1.27', '1.28'] as const) {
  describe(`api: kubectl ${version} over the protobuf OpenAPI v2 document (end to end)`, function () {
    this.timeout(120_000)
    let session: KubectlSession

    before(async function () {
      session = await KubectlSession.open(this, `api-kubectl-${version}-`, { waitFor: 'ready', kubectl: `kubectl-${version}` })
    })
    after(async () => {
      await session?.close()
    })

    it('apply fetches the v2 document, creates, then configures with a strategic merge patch', async () => {
      const created = await session.run('apply', '-f', session.file('web.yaml', DEPLOYMENT('nginx:1', 'b')), '-v=6')
      assert.equal(created.code, 0, created.stderr)
      assert.equal(created.stdout, 'deployment.apps/web created\n')
      assert.match(created.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/openapi\/v2\?timeout=32s 200 OK/)
      assert.equal(await session.ok('apply', '-f', session.file('web2.yaml', DEPLOYMENT('nginx:2', 'c'))), 'deployment.apps/web configured\n')
      const containers = JSON.parse(await session.ok('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers}')) as Record<string, unknown>[]
      assert.deepEqual(containers.map((c) => [c.name, c.image]), [['a', 'nginx:2'], ['c', 'busybox:1']])
      // Merged by name, not replaced: what the server defaulted at creation stays, as on a cluster.
      assert.equal(containers[0]!.imagePullPolicy, 'IfNotPresent')
      assert.equal(containers[0]!.terminationMessagePath, '/dev/termination-log')
      assert.deepEqual(containers[0]!.ports, [{ containerPort: 80, protocol: 'TCP' }])
      assert.equal(await session.ok('apply', '-f', session.file('web2.yaml', DEPLOYMENT('nginx:2', 'c'))), 'deployment.apps/web unchanged\n')
    })

    it('explain in the v2 output reads the document', async () => {
      assert.equal(
        await session.ok('explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2'),
        [
          'KIND:     Deployment',
          'VERSION:  apps/v1',
          '',
          'FIELD:    replicas <integer>',
          '',
          'DESCRIPTION:',
          '     Number of desired pods. This is a pointer to distinguish between explicit',
          '     zero and not specified. Defaults to 1.',
          '',
        ].join('\n'),
      )
    })

    it('apply --server-side', async () => {
      const path = session.file('ssa.yaml', DEPLOYMENT('nginx:3', 'c').replace('name: web', 'name: ssa'))
      assert.equal(await session.ok('apply', '--server-side', '-f', path), 'deployment.apps/ssa serverside-applied\n')
      assert.equal(await session.ok('get', 'deployment', 'ssa', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:3')
    })

    it('a custom resource applies once its definition is established', async () => {
      assert.equal(await session.ok('apply', '-f', session.file('crd.yaml', CRD)), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n')
      await session.ok('wait', '--for=condition=Established', 'crd/crontabs.stable.example.com', '--timeout=30s')
      const cr = (replicas: number) => `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c1}\nspec: {cronSpec: "* * * * */5", replicas: ${replicas}}\n`
      assert.equal(await session.ok('apply', '-f', session.file('cr.yaml', cr(1))), 'crontab.stable.example.com/c1 created\n')
      assert.equal(await session.ok('apply', '-f', session.file('cr.yaml', cr(2))), 'crontab.stable.example.com/c1 configured\n')
      assert.equal(await session.ok('get', 'crontab', 'c1', '-o', 'jsonpath={.spec.replicas}'), '2')
    })
  })
}
