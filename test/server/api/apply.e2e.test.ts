import assert from 'node:assert/strict'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { describeEachStoreAndKubectl } from '../../support/kubectl-versions.js'

/** Server-side apply with the real kubectl against the built server: 1.35 on each store, 1.32 on the embedded one. */
describeEachStoreAndKubectl('api: kubectl apply --server-side (end to end)', 'apply-e2e', function (store, client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-apply-', { waitFor: 'ready', store, kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const json = async (...args: string[]) => JSON.parse(await ok(...args, '-o', 'json')) as Record<string, any>

  const deployment = (replicas: number | undefined, extra = '') =>
    session.file(
      'deploy.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: web',
        '  labels: {app: web}',
        'spec:',
        ...(replicas === undefined ? [] : [`  replicas: ${replicas}`]),
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      containers:',
        '      - name: nginx',
        '        image: nginx:1.25',
        extra,
        '',
      ].join('\n'),
    )

  it('creates, re-applies unchanged, changes and removes fields', async () => {
    assert.equal(await ok('apply', '--server-side', '-f', deployment(2, '        env: [{name: A, value: "1"}]')), 'deployment.apps/web serverside-applied\n')
    const first = await json('get', 'deployment', 'web', '--show-managed-fields')
    assert.equal(first.spec.replicas, 2)
    assert.deepEqual(first.spec.template.spec.containers[0].env, [{ name: 'A', value: '1' }])
    const entry = first.metadata.managedFields.find((e: any) => e.manager === 'kubectl')
    assert.equal(entry.operation, 'Apply')
    assert.equal(entry.apiVersion, 'apps/v1')
    assert.equal(entry.fieldsType, 'FieldsV1')
    assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    assert.deepEqual(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}']['f:env'], { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } })
    assert.deepEqual(entry.fieldsV1['f:metadata'], { 'f:labels': { 'f:app': {} } })
    assert.deepEqual(entry.fieldsV1['f:spec']['f:selector'], {})

    assert.equal(await ok('apply', '--server-side', '-f', deployment(2, '        env: [{name: A, value: "1"}]')), 'deployment.apps/web serverside-applied\n')
    const again = await json('get', 'deployment', 'web')
    assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion, 'an unchanged apply does not write')

    await ok('apply', '--server-side', '-f', deployment(3))
    const changed = await json('get', 'deployment', 'web')
    assert.equal(changed.spec.replicas, 3)
    assert.equal(changed.spec.template.spec.containers[0].env, undefined, 'the field left out of the configuration is removed')
    assert.equal(changed.metadata.generation, 2)
  })

  it('managedFields are hidden unless asked for, and shown as kubectl shows them', async () => {
    assert.doesNotMatch(await ok('get', 'deployment', 'web', '-o', 'yaml'), /managedFields/)
    const yaml = await ok('get', 'deployment', 'web', '-o', 'yaml', '--show-managed-fields')
    assert.match(yaml, /  managedFields:\n  - apiVersion: apps\/v1\n    fieldsType: FieldsV1\n    fieldsV1:\n/)
    assert.match(yaml, /    manager: kubectl\n    operation: Apply\n    time: "?\d{4}-/)
  })

  it('a conflict with another manager fails; --force-conflicts takes the field over', async () => {
    const other = session.file('other.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 5\n')
    const conflict = await kubectl('apply', '--server-side', '--field-manager=other', '-f', other)
    assert.equal(conflict.code, 1)
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas\n/)
    assert.match(conflict.stderr, /Please review the fields above--they currently have other managers/)
    assert.equal((await json('get', 'deployment', 'web')).spec.replicas, 3)

    await ok('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other)
    const forced = await json('get', 'deployment', 'web', '--show-managed-fields')
    assert.equal(forced.spec.replicas, 5)
    const byManager = Object.fromEntries(forced.metadata.managedFields.map((e: any) => [e.manager, e]))
    assert.deepEqual(byManager.other.fieldsV1, { 'f:spec': { 'f:replicas': {} } })
    assert.equal(byManager.kubectl.fieldsV1['f:spec']['f:replicas'], undefined, 'the forced field left its previous manager')
  })

  it('kubectl scale takes .spec.replicas: the next apply conflicts with the scale subresource manager', async () => {
    await ok('scale', 'deployment', 'web', '--replicas=4')
    const scaled = await json('get', 'deployment', 'web', '--show-managed-fields')
    const scaleEntry = scaled.metadata.managedFields.find((e: any) => e.subresource === 'scale')
    assert.equal(scaleEntry.operation, 'Update')
    assert.deepEqual(scaleEntry.fieldsV1, { 'f:spec': { 'f:replicas': {} } })
    const r = await kubectl('apply', '--server-side', '--field-manager=other', '-f', session.file('other.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 6\n'))
    assert.equal(r.code, 1)
    assert.match(r.stderr, new RegExp(`^error: Apply failed with 1 conflict: conflict with "${scaleEntry.manager}" with subresource "scale" using apps/v1: \\.spec\\.replicas\\n`))
  })

  it('kubectl diff --server-side shows what an apply would change', async () => {
    const r = await kubectl('diff', '--server-side', '--force-conflicts', '-f', deployment(7))
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stdout, /^-  replicas: 4$/m)
    assert.match(r.stdout, /^\+  replicas: 7$/m)
    assert.equal((await json('get', 'deployment', 'web')).spec.replicas, 4)
  })

  it('cluster-scoped objects, and list items keyed by a defaulted key (service ports by port and protocol)', async () => {
    assert.equal(await ok('apply', '--server-side', '-f', session.file('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ssa\n  labels: {team: a}\n')), 'namespace/ssa serverside-applied\n')
    assert.equal((await json('get', 'namespace', 'ssa')).metadata.labels.team, 'a')
    // An object no manager was tracked for (the bootstrap namespace): what it held goes to before-first-apply.
    await ok('apply', '--server-side', '-f', session.file('default.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n  labels: {team: b}\n'))
    const bootstrap = await json('get', 'namespace', 'default', '--show-managed-fields')
    assert.equal(bootstrap.metadata.labels.team, 'b')
    assert.deepEqual(
      bootstrap.metadata.managedFields.map((e: any) => [e.manager, e.operation]),
      [
        ['kubectl', 'Apply'],
        ['before-first-apply', 'Update'],
      ],
    )
    const svc = (port: number) =>
      session.file('svc.yaml', `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - name: http\n    port: 80\n    targetPort: ${port}\n`)
    await ok('apply', '--server-side', '-f', svc(8080))
    await ok('apply', '--server-side', '-f', svc(9090))
    const service = await json('get', 'service', 'web', '--show-managed-fields')
    assert.equal(service.spec.ports.length, 1)
    assert.equal(service.spec.ports[0].targetPort, 9090)
    const entry = service.metadata.managedFields.find((e: any) => e.manager === 'kubectl')
    assert.deepEqual(entry.fieldsV1['f:spec']['f:ports'], { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} } })
  })

  it('a CRD and its custom resources: list items merged by the CRD schema keys, conflicts between managers', async () => {
    const crd = [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata: {name: gadgets.example.com}',
      'spec:',
      '  group: example.com',
      '  scope: Namespaced',
      '  names: {plural: gadgets, singular: gadget, kind: Gadget}',
      '  versions:',
      '  - name: v1',
      '    served: true',
      '    storage: true',
      '    schema:',
      '      openAPIV3Schema:',
      '        type: object',
      '        properties:',
      '          spec:',
      '            type: object',
      '            properties:',
      '              size: {type: integer}',
      '              parts:',
      '                type: array',
      '                x-kubernetes-list-type: map',
      '                x-kubernetes-list-map-keys: [name]',
      // A map list's key is required (or defaulted): apiextensions validation refuses the CRD otherwise.
      '                items: {type: object, required: [name], properties: {name: {type: string}, count: {type: integer}}}',
      '',
    ].join('\n')
    assert.equal(await ok('apply', '--server-side', '-f', session.file('crd.yaml', crd)), 'customresourcedefinition.apiextensions.k8s.io/gadgets.example.com serverside-applied\n')
    const gadget = (manager: string, parts: string, size?: number) =>
      kubectl(
        'apply',
        '--server-side',
        `--field-manager=${manager}`,
        '-f',
        session.file('g.yaml', `apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n${size === undefined ? '' : `  size: ${size}\n`}  parts: ${parts}\n`),
      )
    assert.equal((await gadget('alice', '[{name: a, count: 1}]', 1)).code, 0)
    assert.equal((await gadget('bob', '[{name: b, count: 2}]')).code, 0)
    const both = await json('get', 'gadget', 'g', '--show-managed-fields')
    assert.deepEqual(both.spec.parts, [
      { name: 'a', count: 1 },
      { name: 'b', count: 2 },
    ])
    assert.deepEqual(both.metadata.managedFields.find((e: any) => e.manager === 'bob').fieldsV1, { 'f:spec': { 'f:parts': { 'k:{"name":"b"}': { '.': {}, 'f:count': {}, 'f:name': {} } } } })
    const conflict = await gadget('bob', '[{name: b, count: 2}]', 2)
    assert.equal(conflict.code, 1)
    assert.match(conflict.stderr, /^error: Apply failed with 1 conflict: conflict with "alice": \.spec\.size\n/)
  })

  it('--dry-run=server creates and changes nothing', async () => {
    const cm = session.file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  a: "1"\n')
    assert.equal(await ok('apply', '--server-side', '--dry-run=server', '-f', cm), 'configmap/dry serverside-applied (server dry run)\n')
    const missing = await kubectl('get', 'configmap', 'dry')
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /configmaps "dry" not found/)
    await ok('apply', '--server-side', '-f', cm)
    const changed = session.file('cm2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  a: "2"\n')
    const out = await ok('apply', '--server-side', '--dry-run=server', '-f', changed, '-o', 'jsonpath={.data.a}')
    assert.equal(out, '2')
    assert.equal((await json('get', 'configmap', 'dry')).data.a, '1')
  })

  it('client-side apply keeps last-applied-configuration; kubectl label is recorded; kubectl server-side apply takes over from client-side apply', async () => {
    const cm = session.file('csa.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  a: "1"\n')
    assert.equal(await ok('apply', '-f', cm), 'configmap/csa created\n')
    const created = await json('get', 'configmap', 'csa', '--show-managed-fields')
    assert.match(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /"data":\{"a":"1"\}/)
    assert.deepEqual(
      created.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsV1]),
      [['kubectl-client-side-apply', 'Update', 'v1', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }]],
    )
    await ok('apply', '-f', session.file('csa.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  a: "2"\n'))
    assert.equal((await json('get', 'configmap', 'csa')).data.a, '2')
    await ok('label', 'configmap', 'csa', 'team=x')
    const labelled = await json('get', 'configmap', 'csa', '--show-managed-fields')
    const label = labelled.metadata.managedFields.find((e: any) => e.manager === 'kubectl-label')
    assert.deepEqual(label.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } })

    // Another manager's server-side apply of a field client-side apply set conflicts with it.
    const three = session.file('csa.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csa\ndata:\n  a: "3"\n')
    const r = await kubectl('apply', '--server-side', '--field-manager=other', '-f', three)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: \.data\.a\n/)
    // kubectl's own server-side apply takes over what its last client-side apply set, and keeps the annotation in step.
    await ok('apply', '--server-side', '-f', three)
    const upgraded = await json('get', 'configmap', 'csa', '--show-managed-fields')
    assert.equal(upgraded.data.a, '3')
    assert.equal(upgraded.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"v1","data":{"a":"3"},"kind":"ConfigMap","metadata":{"name":"csa","namespace":"default"}}\n')
    const kubectlEntry = upgraded.metadata.managedFields.find((e: any) => e.manager === 'kubectl')
    assert.deepEqual(kubectlEntry.fieldsV1, { 'f:data': { 'f:a': {} } })
  })
})
