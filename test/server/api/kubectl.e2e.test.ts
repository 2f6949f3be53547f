import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { ApiServer } from '../../support/api-server.js'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { deletedLine, describeEachStoreAndKubectl } from '../../support/kubectl-versions.js'
import { SPEC_CHECKS } from '../../support/spec-checks.js'
import { REFERENCE_GROUP_ORDER } from '../../support/reference-discovery.js'

describeEachStoreAndKubectl('api: the real kubectl against the built server (end to end)', 'kubectl-e2e', function (store, client) {
  this.timeout(120_000)
  let session: KubectlSession
  let server: ApiServer
  let tmp: string

  before(async function () {
    session = await KubectlSession.open(this, 'api-kubectl-', { waitFor: 'ready', store, kubectl: client.tool })
    server = session.server
    tmp = session.tmp
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)
  const file = (name: string, text: string) => session.file(name, text)
  const deleted = (what: string, namespace?: string, operation?: string, dryRun?: 'server') => deletedLine(client, what, namespace, operation, dryRun)

  it('version, api-resources and the bootstrap namespaces', async () => {
    const version = await kubectl('version')
    assert.equal(version.code, 0, version.stderr)
    assert.match(version.stdout, /Server Version: v1\.\d+\.\d+/)
    // kubectl warns when the server is more than one minor away: never for 1.35, always for 1.32.
    if (client.minor >= 34) assert.equal(version.stderr, '')
    else assert.match(version.stderr, /^WARNING: version difference between client \(1\.32\) and server \(1\.35\) exceeds the supported minor version skew of \+\/-1\n$/)
    const resources = await ok('api-resources')
    assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m)
    assert.match(resources, /^namespaces\s+ns\s+v1\s+false\s+Namespace$/m)
    const ns = await ok('get', 'ns')
    assert.match(ns, /^NAME\s+STATUS\s+AGE$/m)
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.match(ns, new RegExp(`^${name}\\s+Active\\s+[0-9][0-9ms]*$`, 'm'))
    // The product spec's verbose ready report (spec 2.1, 2.2): its check list in order, then
    // `healthz check passed` (the spec's word on every endpoint, where the reference says `readyz`).
    const checks = [...SPEC_CHECKS, 'shutdown']
    assert.equal(await ok('get', '--raw', '/readyz?verbose'), `${checks.map((c) => `[+]${c} ok\n`).join('')}healthz check passed\n`)
  })

  it('the kubernetes service: 10.0.0.1:443 to this server; new services get other addresses', async () => {
    assert.match(await ok('get', 'svc', 'kubernetes', '-n', 'default'), /^kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+[0-9][0-9ms]*$/m)
    const ep = JSON.parse(await ok('get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'json'))
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }])
    const svc = file('svc-ip.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: ip-check\nspec:\n  ports:\n  - port: 80\n')
    await ok('create', '-f', svc)
    const ip = (await ok('get', 'svc', 'ip-check', '-o', 'jsonpath={.spec.clusterIP}')).trim()
    assert.match(ip, /^10\.0\.0\.\d+$/)
    assert.notEqual(ip, '10.0.0.1')
    await ok('delete', 'svc', 'ip-check')
  })

  it('events print with the reference columns (wide adds subobject, source, first seen, count, name)', async () => {
    const ev = file(
      'ev.yaml',
      'apiVersion: v1\nkind: Event\nmetadata:\n  name: web.1\ninvolvedObject:\n  kind: Pod\n  name: web\n  namespace: default\n  fieldPath: spec.containers{app}\nreason: Pulled\ntype: Normal\nmessage: "  Image pulled  "\nsource:\n  component: nodeagent\n  host: node-1\ncount: 3\n',
    )
    await ok('create', '-f', ev)
    assert.match(await ok('get', 'events'), /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n<unknown>\s+Normal\s+Pulled\s+pod\/web\s+Image pulled\n$/)
    assert.match(
      await ok('get', 'events', '-o', 'wide'),
      /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME\n<unknown>\s+Normal\s+Pulled\s+pod\/web\s+spec\.containers\{app\}\s+nodeagent, node-1\s+Image pulled\s+<unknown>\s+3\s+web\.1\n$/,
    )
    await ok('delete', 'events', 'web.1')
  })

  it('privileged containers are refused by default (--allow-privileged=false), in pods and pod templates', async () => {
    const pod = file('priv.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: priv\nspec:\n  containers:\n  - name: c\n    image: busybox\n    securityContext:\n      privileged: true\n')
    const r = await kubectl('create', '-f', pod)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `The Pod "priv" is invalid: spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy\n`)
    const deploy = file(
      'priv-deploy.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: priv\nspec:\n  selector:\n    matchLabels:\n      app: p\n  template:\n    metadata:\n      labels:\n        app: p\n    spec:\n      initContainers:\n      - name: i\n        image: busybox\n        securityContext:\n          privileged: true\n      containers:\n      - name: c\n        image: busybox\n',
    )
    const d = await kubectl('create', '-f', deploy)
    assert.equal(d.code, 1)
    assert.match(d.stderr, /spec\.template\.spec\.initContainers\[0\]\.securityContext\.privileged: Forbidden: disallowed by cluster policy/)
  })

  it('create, get, label, annotate, patch (three types), delete a config map', async () => {
    const cm = file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n')
    assert.equal(await ok('create', '-f', cm), 'configmap/x created\n')
    assert.match(await ok('get', 'cm', '-n', 'default'), /^NAME\s+DATA\s+AGE\nx\s+1\s+[0-9][0-9ms]*$/m)
    const yaml = await ok('get', 'cm', 'x', '-o', 'yaml')
    assert.match(yaml, /^kind: ConfigMap$/m)
    assert.match(yaml, /^  resourceVersion: "\d+"$/m)
    assert.match(yaml, /^  uid: [0-9a-f-]{36}$/m)
    assert.equal(await ok('label', 'cm', 'x', 'a=b'), 'configmap/x labeled\n')
    assert.equal(await ok('annotate', 'cm', 'x', 'note=hi'), 'configmap/x annotated\n')
    assert.equal(await ok('patch', 'cm', 'x', '--type', 'merge', '-p', '{"data":{"b":"2"}}'), 'configmap/x patched\n')
    assert.equal(await ok('patch', 'cm', 'x', '--type', 'merge', '-p', '{"data":{"b":"2"}}'), 'configmap/x patched (no change)\n')
    assert.equal(await ok('patch', 'cm', 'x', '-p', '{"data":{"c":"3"}}'), 'configmap/x patched\n')
    assert.equal(await ok('patch', 'cm', 'x', '--type', 'json', '-p', '[{"op":"remove","path":"/data/c"}]'), 'configmap/x patched\n')
    const obj = JSON.parse(await ok('get', 'cm', 'x', '-o', 'json'))
    assert.deepEqual(obj.data, { a: '1', b: '2' })
    assert.deepEqual(obj.metadata.labels, { a: 'b' })
    assert.deepEqual(obj.metadata.annotations, { note: 'hi' })
    assert.match(await ok('get', 'cm', '-l', 'a in (b,c)', '-o', 'name'), /^configmap\/x$/m)
    assert.equal(await ok('delete', 'cm', 'x'), deleted('configmap "x"', 'default'))
    const missing = await kubectl('get', 'cm', 'x')
    assert.equal(missing.code, 1)
    assert.equal(missing.stderr, 'Error from server (NotFound): configmaps "x" not found\n')
  })

  it('errors: a missing namespace, an invalid name, an existing object', async () => {
    const cm = file('cm-nope.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: in-nope\n  namespace: nope\n')
    const r = await kubectl('create', '-f', cm)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /Error from server \(NotFound\): error when creating ".*": namespaces "nope" not found/)
    const bad = await kubectl('create', '-f', file('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n'))
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /^The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/)
    const twice = file('twice.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\n')
    await ok('create', '-f', twice)
    const again = await kubectl('create', '-f', twice)
    assert.match(again.stderr, /Error from server \(AlreadyExists\): error when creating ".*": configmaps "twice" already exists/)
    assert.match(await ok('create', '-f', file('dry.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n'), '--dry-run=server'), /configmap\/dry created \(server dry run\)/)
    assert.equal((await kubectl('get', 'cm', 'dry')).code, 1)
  })

  it('get -w prints an event when another kubectl creates a config map', async () => {
    const watcher = spawn(session.kubectl, [...session.base, 'get', 'cm', '-n', 'default', '-w'], { env: { ...process.env, HOME: tmp } })
    let out = ''
    watcher.stdout.on('data', (d) => (out += d))
    watcher.stderr.on('data', (d) => (out += d))
    try {
      await new Promise((r) => setTimeout(r, 1500))
      await ok('create', '-f', file('watched.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\ndata:\n  a: b\n'))
      const deadline = Date.now() + 10_000
      while (!/^watched\s+1\s+[0-9][0-9ms]*$/m.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      assert.match(out, /^watched\s+1\s+[0-9][0-9ms]*$/m)
      // The list comes first, as a table with its header; the event is a row without one.
      assert.match(out, /^NAME\s+DATA\s+AGE\n/)
      assert.equal(out.match(/^NAME\s/gm)?.length, 1)
    } finally {
      watcher.kill('SIGTERM')
    }
  })

  it('apply -f creates, then configures, then leaves unchanged', async () => {
    const manifest = (v: string) => file('apply.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels:\n    v: "${v}"\ndata:\n  v: "${v}"\n`)
    assert.equal(await ok('apply', '-f', manifest('1')), 'configmap/applied created\n')
    assert.equal(await ok('apply', '-f', manifest('2')), 'configmap/applied configured\n')
    assert.equal(await ok('apply', '-f', manifest('2')), 'configmap/applied unchanged\n')
    const obj = JSON.parse(await ok('get', 'cm', 'applied', '-o', 'json'))
    assert.deepEqual(obj.data, { v: '2' })
    assert.ok(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'])
  })

  it('namespaces: create with contents, delete removes them', async () => {
    const f = file('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: team-a\n')
    assert.equal(await ok('create', '-f', f), 'namespace/team-a created\nconfigmap/cfg created\n')
    assert.match(await ok('get', 'cm', '-A'), /^team-a\s+cfg\s+0\s+[0-9][0-9ms]*$/m)
    assert.equal(await ok('delete', 'ns', 'team-a'), 'namespace "team-a" deleted\n')
    assert.doesNotMatch(await ok('get', 'cm', '-A'), /team-a/)
    assert.match((await kubectl('delete', 'ns', 'default')).stderr, /namespaces "default" is forbidden: this namespace may not be deleted/)
  })

  it('delete: --all and -l (list then delete), deletecollection, preconditions, dry run, options', async () => {
    await ok('create', '-f', file('dc.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata: {name: dc}\n'))
    // (kubectl create cm/ns send protobuf, which is not served: manifests instead.)
    const cms = (list: Array<[string, string]>) =>
      file(`cms-${list[0]![0]}.yaml`, list.map(([name, labels]) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: dc, labels: {${labels}}}\ndata: {k: v}\n`).join('---\n'))
    await ok('create', '-f', cms([['a1', 'a: b'], ['a2', 'a: b'], ['c1', 'a: c'], ['c2', 'a: c'], ['d1', 'x: z']]))
    assert.equal(await ok('delete', 'cm', '-l', 'a=b', '-n', 'dc'), deleted('configmap "a1"', 'dc') + deleted('configmap "a2"', 'dc'))
    assert.equal(await ok('get', 'cm', '-n', 'dc', '-o', 'name'), 'configmap/c1\nconfigmap/c2\nconfigmap/d1\n')

    // DELETE on the collection: selectors, dry run, the deleted objects as a list.
    const dry = await server.get('/api/v1/namespaces/dc/configmaps?labelSelector=a%3Dc&dryRun=All', {}, 'DELETE')
    assert.equal(dry.status, 200)
    assert.deepEqual(JSON.parse(dry.body).items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c1', 'c2'])
    assert.equal(await ok('get', 'cm', '-n', 'dc', '-o', 'name'), 'configmap/c1\nconfigmap/c2\nconfigmap/d1\n')
    const dc = await server.get('/api/v1/namespaces/dc/configmaps?labelSelector=a%3Dc', {}, 'DELETE')
    assert.equal(dc.status, 200)
    const dcList = JSON.parse(dc.body)
    assert.equal(dcList.kind, 'ConfigMapList')
    assert.deepEqual(dcList.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c1', 'c2'])
    assert.equal(await ok('get', 'cm', '-n', 'dc', '-o', 'name'), 'configmap/d1\n')
    assert.equal((await server.get('/api/v1/configmaps', {}, 'DELETE')).status, 405, 'no deletecollection across namespaces')
    assert.equal((await server.get('/api/v1/namespaces', {}, 'DELETE')).status, 405, 'namespaces have no deletecollection')

    // DeleteOptions: preconditions (409), dry run, propagationPolicy, gracePeriodSeconds.
    const d1 = JSON.parse(await ok('get', 'cm', 'd1', '-n', 'dc', '-o', 'json'))
    // Node's client sends a DELETE body without Content-Length or chunking unless told.
    const del = (path: string, body: unknown) => {
      const text = JSON.stringify(body)
      return server.get(path, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }, 'DELETE', text)
    }
    const staleUid = await del('/api/v1/namespaces/dc/configmaps/d1', { preconditions: { uid: 'nope' } })
    assert.equal(staleUid.status, 409)
    assert.equal(JSON.parse(staleUid.body).message, `Operation cannot be fulfilled on configmaps "d1": Precondition failed: UID in precondition: nope, UID in object meta: ${d1.metadata.uid}`)
    const staleRv = await del('/api/v1/namespaces/dc/configmaps/d1', { preconditions: { resourceVersion: '1' } })
    assert.equal(staleRv.status, 409)
    assert.equal(
      JSON.parse(staleRv.body).message,
      `Operation cannot be fulfilled on configmaps "d1": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${d1.metadata.resourceVersion}`,
    )
    const badPolicy = await del('/api/v1/namespaces/dc/configmaps/d1', { propagationPolicy: 'Sometimes' })
    assert.equal(badPolicy.status, 422)
    assert.match(JSON.parse(badPolicy.body).message, /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes"/)
    const dryDelete = await del('/api/v1/namespaces/dc/configmaps/d1?dryRun=All', { gracePeriodSeconds: 0, propagationPolicy: 'Foreground' })
    assert.equal(dryDelete.status, 200)
    assert.match(await ok('get', 'cm', '-n', 'dc', '-o', 'name'), /configmap\/d1/)
    assert.equal(await ok('delete', 'cm', 'd1', '-n', 'dc', '--dry-run=server'), deleted('configmap "d1"', 'dc', 'deleted', 'server'))
    const good = await del('/api/v1/namespaces/dc/configmaps/d1?gracePeriodSeconds=30', {
      propagationPolicy: 'Foreground',
      preconditions: { uid: d1.metadata.uid, resourceVersion: d1.metadata.resourceVersion },
    })
    assert.equal(good.status, 200)

    await ok('create', '-f', cms([['e1', ''], ['e2', '']]))
    assert.equal(await ok('delete', 'cm', '--all', '-n', 'dc', '--grace-period=0', '--force'), deleted('configmap "e1"', 'dc', 'force deleted') + deleted('configmap "e2"', 'dc', 'force deleted'))
    assert.equal(await ok('get', 'cm', '-n', 'dc', '-o', 'name'), '')
    await ok('delete', 'ns', 'dc')
  })

  it('raw HTTP: Table, 415, 406, 405, unknown resources', async () => {
    const table = await server.get('/api/v1/namespaces', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })
    const t = JSON.parse(table.body)
    assert.equal(t.kind, 'Table')
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Status', 'Age'])
    assert.ok(t.metadata.resourceVersion)
    assert.equal(t.rows[0].object.kind, 'PartialObjectMetadata')
    const proto = await server.get('/api/v1/namespaces/default/configmaps', { 'Content-Type': 'text/plain' }, 'POST', 'x')
    assert.equal(proto.status, 415)
    assert.equal(JSON.parse(proto.body).reason, 'UnsupportedMediaType')
    const accept = await server.get('/api/v1/namespaces', { Accept: 'text/html' })
    assert.equal(accept.status, 406)
    assert.equal(JSON.parse(accept.body).reason, 'NotAcceptable')
    const put = await server.get('/api/v1/namespaces/default/configmaps', { 'Content-Type': 'application/json' }, 'PUT', '{}')
    assert.equal(put.status, 405)
    assert.equal(JSON.parse(put.body).reason, 'MethodNotAllowed')
    const unknown = await server.get('/api/v1/namespaces/default/widgets')
    assert.equal(unknown.status, 404)
    assert.equal(JSON.parse(unknown.body).message, 'the server could not find the requested resource')
    const apis = JSON.parse((await server.get('/apis')).body)
    assert.equal(apis.kind, 'APIGroupList')
    // In the reference's order (its APIService group priorities).
    assert.deepEqual(apis.groups.map((g: { name: string }) => g.name), REFERENCE_GROUP_ORDER)
    const apps = JSON.parse((await server.get('/apis/apps')).body)
    assert.deepEqual(apps, { kind: 'APIGroup', apiVersion: 'v1', name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } })
    const appsV1 = JSON.parse((await server.get('/apis/apps/v1')).body)
    assert.equal(appsV1.kind, 'APIResourceList')
    assert.deepEqual(appsV1.resources.map((r: { name: string }) => r.name), [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ])
    const byName = (n: string) => appsV1.resources.find((r: { name: string }) => r.name === n)
    assert.deepEqual(byName('deployments/scale'), { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] })
    assert.deepEqual(byName('deployments/status'), { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] })
    assert.deepEqual(byName('deployments').verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'])
    assert.equal((await server.get('/apis/nope.example.com')).status, 404)
    // Subresources: only where served; only get, update and patch.
    assert.equal((await server.get('/api/v1/namespaces/default/configmaps/x/status')).status, 404)
    assert.equal((await server.get('/api/v1/namespaces/default/pods/x/scale')).status, 404)
    assert.equal((await server.get('/api/v1/namespaces/default/pods/x/status')).status, 404)
    assert.equal(JSON.parse((await server.get('/api/v1/namespaces/default/pods/x/status')).body).message, 'pods "x" not found')
    assert.equal((await server.get('/api/v1/namespaces/default/pods/x/status', {}, 'DELETE')).status, 405)
    assert.equal(JSON.parse((await server.get('/api/v1/namespaces/default/status')).body).kind, 'Namespace')
  })

  it('built-in kinds: api-resources with short names, create from YAML, list, delete', async () => {
    const resources = await ok('api-resources')
    for (const re of [
      /^pods\s+po\s+v1\s+true\s+Pod$/m,
      /^services\s+svc\s+v1\s+true\s+Service$/m,
      /^secrets\s+v1\s+true\s+Secret$/m,
      /^nodes\s+no\s+v1\s+false\s+Node$/m,
      /^persistentvolumeclaims\s+pvc\s+v1\s+true\s+PersistentVolumeClaim$/m,
      /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m,
      /^cronjobs\s+cj\s+batch\/v1\s+true\s+CronJob$/m,
      /^jobs\s+batch\/v1\s+true\s+Job$/m,
      /^roles\s+rbac\.authorization\.k8s\.io\/v1\s+true\s+Role$/m,
      /^clusterroles\s+rbac\.authorization\.k8s\.io\/v1\s+false\s+ClusterRole$/m,
      /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m,
      /^networkpolicies\s+netpol\s+networking\.k8s\.io\/v1\s+true\s+NetworkPolicy$/m,
      /^poddisruptionbudgets\s+pdb\s+policy\/v1\s+true\s+PodDisruptionBudget$/m,
      /^priorityclasses\s+pc\s+scheduling\.k8s\.io\/v1\s+false\s+PriorityClass$/m,
    ]) {
      assert.match(resources, re)
    }
    const manifest = file(
      'builtins.yaml',
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web}',
        'spec:',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec: {containers: [{name: nginx, image: "nginx:1.27"}]}',
        '---',
        'apiVersion: v1',
        'kind: Service',
        'metadata: {name: web}',
        'spec: {selector: {app: web}, ports: [{port: 80}]}',
        '---',
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {name: creds}',
        'stringData: {user: admin, password: s3cret}',
        '---',
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: Role',
        'metadata: {name: reader}',
        'rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]',
        '---',
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: solo, labels: {app: solo}}',
        'spec: {containers: [{name: c, image: busybox}]}',
        '',
      ].join('\n'),
    )
    assert.equal(
      await ok('create', '-f', manifest),
      'deployment.apps/web created\nservice/web created\nsecret/creds created\nrole.rbac.authorization.k8s.io/reader created\npod/solo created\n',
    )
    const listed = await ok('get', 'deploy,svc,secret,role,po', '-n', 'default')
    assert.match(listed, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/web\s+0\/1\s+0\s+0\s+[0-9][0-9ms]*$/m)
    assert.match(listed, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nservice\/kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+[0-9][0-9ms]*\nservice\/web\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s+[0-9][0-9ms]*$/m)
    assert.match(listed, /^NAME\s+TYPE\s+DATA\s+AGE\nsecret\/creds\s+Opaque\s+2\s+[0-9][0-9ms]*$/m)
    assert.match(listed, /^NAME\s+CREATED AT\nrole\.rbac\.authorization\.k8s\.io\/reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m)
    assert.match(listed, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\npod\/solo\s+0\/1\s+Pending\s+0\s+[0-9][0-9ms]*$/m)

    const pod = JSON.parse(await ok('get', 'po', 'solo', '-o', 'json'))
    assert.equal(pod.status.phase, 'Pending')
    assert.equal(pod.spec.restartPolicy, 'Always')
    assert.equal(pod.spec.containers[0].imagePullPolicy, 'Always')
    assert.match(await ok('get', 'po', '--field-selector', 'status.phase=Pending', '-o', 'name'), /^pod\/solo$/m)
    assert.doesNotMatch(await ok('get', 'po', '--field-selector', 'spec.nodeName=node-1', '-o', 'name'), /solo/)
    const secret = JSON.parse(await ok('get', 'secret', 'creds', '-o', 'json'))
    assert.equal(Buffer.from(secret.data.user, 'base64').toString(), 'admin')
    const svc = JSON.parse(await ok('get', 'svc', 'web', '-o', 'json'))
    assert.match(svc.spec.clusterIP, /^10\.0\.0\.\d+$/)
    assert.equal(svc.spec.ports[0].targetPort, 80)
    const deploy = JSON.parse(await ok('get', 'deployment.apps', 'web', '-o', 'json'))
    assert.equal(deploy.metadata.generation, 1)
    assert.equal(deploy.spec.replicas, 1)
    assert.equal(await ok('scale', 'deploy', 'web', '--replicas=3'), 'deployment.apps/web scaled\n')
    const scaled = JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json'))
    assert.equal(scaled.spec.replicas, 3)
    assert.equal(scaled.metadata.generation, 2)
    assert.equal(
      await ok('patch', 'deploy', 'web', '--subresource=scale', '--type', 'merge', '-p', '{"spec":{"replicas":2}}'),
      'scale.autoscaling/web patched\n',
    )
    const scaleObj = JSON.parse(await ok('get', 'deploy', 'web', '--subresource=scale', '-o', 'json'))
    assert.equal(scaleObj.kind, 'Scale')
    assert.equal(scaleObj.apiVersion, 'autoscaling/v1')
    assert.deepEqual(scaleObj.spec, { replicas: 2 })
    assert.deepEqual(scaleObj.status, { replicas: 0, selector: 'app=web' })
    assert.equal(JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json')).metadata.generation, 3)
    assert.equal(
      await ok('patch', 'deploy', 'web', '--subresource=status', '--type', 'merge', '-p', '{"status":{"replicas":7},"spec":{"replicas":9}}'),
      'deployment.apps/web patched\n',
    )
    const patchedStatus = JSON.parse(await ok('get', 'deploy', 'web', '--subresource=status', '-o', 'json'))
    assert.equal(patchedStatus.status.replicas, 7)
    assert.equal(patchedStatus.spec.replicas, 2, 'the status subresource changes only .status')
    assert.equal(patchedStatus.metadata.generation, 3)
    assert.equal(
      await ok('apply', '-f', file('svc-apply.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {tier: front}}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n')),
      'service/web configured\n',
    )
    assert.equal(JSON.parse(await ok('get', 'svc', 'web', '-o', 'json')).spec.clusterIP, svc.spec.clusterIP)
    assert.equal(await ok('patch', 'deploy', 'web', '-p', '{"spec":{"replicas":4},"status":{"replicas":1}}'), 'deployment.apps/web patched\n')
    const afterPatch = JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json'))
    assert.equal(afterPatch.metadata.generation, 4)
    assert.equal(afterPatch.status.replicas, 7, 'the main resource ignores status changes')

    const scaleBody = (replicas: number) =>
      JSON.stringify({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default' }, spec: { replicas } })
    const putScale = (replicas: number) =>
      server.get('/apis/apps/v1/namespaces/default/deployments/web/scale', { 'Content-Type': 'application/json' }, 'PUT', scaleBody(replicas))
    const negative = await putScale(-1)
    assert.equal(negative.status, 422)
    assert.equal(JSON.parse(negative.body).message, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    const put5 = await putScale(5)
    assert.equal(put5.status, 200)
    assert.deepEqual(JSON.parse(put5.body).spec, { replicas: 5 })
    assert.equal(JSON.parse(await ok('get', 'deploy', 'web', '-o', 'json')).spec.replicas, 5)
    const roles = await ok('get', 'clusterroles')
    assert.match(roles, /^NAME\s+CREATED AT$/m)
    assert.match(roles, /^cluster-admin\s/m)
    assert.match(await ok('get', 'clusterrole', 'cluster-admin', '-o', 'yaml'), /^kind: ClusterRole$/m)
    assert.match(await ok('get', 'clusterrolebindings', '-o', 'name'), /^clusterrolebinding\.rbac\.authorization\.k8s\.io\/cluster-admin$/m)
    assert.match(await ok('get', 'priorityclasses', '-o', 'name'), /^priorityclass\.scheduling\.k8s\.io\/system-cluster-critical$/m)

    assert.equal(
      await ok('delete', '-f', manifest),
      ['deployment.apps "web"', 'service "web"', 'secret "creds"', 'role.rbac.authorization.k8s.io "reader"', 'pod "solo"'].map((what) => deleted(what, 'default')).join(''),
    )
    const empty = await kubectl('get', 'deploy,svc,secret,role,po', '-n', 'default')
    assert.equal(empty.code, 0)
    // Only the server's own `kubernetes` service is left.
    assert.match(empty.stdout, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nservice\/kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+[0-9][0-9ms]*\n$/)
  })
})
