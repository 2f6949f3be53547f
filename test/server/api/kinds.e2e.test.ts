/**
 * Issue #16's end-to-end list with the real kubectl (1.35, and 1.32 for skew): the kinds a real cluster's manifests
 * and kubectl's commands need beyond the workloads (autoscaling, storage, ingress and runtime
 * classes, priority classes, certificate requests and their approval, endpoint slices, flow
 * schemas), an eviction that a PodDisruptionBudget blocks (as `kubectl drain` meets it), and a
 * ReplicationController created without a selector that `kubectl expose` can still expose.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { KubectlSession, type Run } from '../../support/kubectl-session.js'
import { describeEachStoreAndKubectl } from '../../support/kubectl-versions.js'

describeEachStoreAndKubectl('api: the rest of the built-in kinds with the real kubectl (end to end)', 'kinds-e2e', function (store, client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-kinds-', { waitFor: 'ready', store, kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  const kubectl = (...args: string[]): Promise<Run> => session.run(...args)
  const ok = (...args: string[]): Promise<string> => session.ok(...args)

  it('kubectl autoscale makes an HPA that kubectl get hpa prints as the reference (both versions read it)', async () => {
    await ok('create', 'deployment', 'web', '--image=nginx:1.27')
    assert.equal((await ok('autoscale', 'deployment', 'web', '--max=5')).trim(), 'horizontalpodautoscaler.autoscaling/web autoscaled')
    await ok('autoscale', 'deployment', 'web', '--name=web-cpu', '--max=4', '--min=2', '--cpu-percent=60')
    const table = await ok('get', 'hpa')
    assert.match(table, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m)
    assert.match(table, /^web\s+Deployment\/web\s+cpu: <unknown>\/80%\s+1\s+5\s+0\s+\d+s$/m)
    assert.match(table, /^web-cpu\s+Deployment\/web\s+cpu: <unknown>\/60%\s+2\s+4\s+0\s+\d+s$/m)
    // kubectl autoscale writes autoscaling/v1; the v2 form has the metric, the v1 form the CPU target.
    const v2 = JSON.parse(await ok('get', '--raw', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web-cpu'))
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }])
    const v1 = JSON.parse(await ok('get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web'))
    assert.equal(v1.apiVersion, 'autoscaling/v1')
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 80)
    assert.equal(v1.spec.minReplicas, 1)
    // The HPA's target has the scale subresource it drives.
    assert.equal((await ok('get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale')).includes('"kind":"Scale"'), true)
  })

  it('kubectl create -f of a StorageClass, IngressClass, RuntimeClass and PriorityClass, printed with the reference columns', async () => {
    const manifest = session.file(
      'classes.yaml',
      [
        'apiVersion: storage.k8s.io/v1',
        'kind: StorageClass',
        'metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}',
        'provisioner: example.com/fast',
        '---',
        'apiVersion: networking.k8s.io/v1',
        'kind: IngressClass',
        'metadata: {name: nginx}',
        'spec: {controller: k8s.io/ingress-nginx}',
        '---',
        'apiVersion: node.k8s.io/v1',
        'kind: RuntimeClass',
        'metadata: {name: gvisor}',
        'handler: runsc',
        '---',
        'apiVersion: scheduling.k8s.io/v1',
        'kind: PriorityClass',
        'metadata: {name: high}',
        'value: 1000',
        '',
      ].join('\n'),
    )
    assert.equal(
      (await ok('create', '-f', manifest)).trim(),
      ['storageclass.storage.k8s.io/fast created', 'ingressclass.networking.k8s.io/nginx created', 'runtimeclass.node.k8s.io/gvisor created', 'priorityclass.scheduling.k8s.io/high created'].join('\n'),
    )
    assert.match(await ok('get', 'sc'), /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\nfast \(default\)\s+example\.com\/fast\s+Delete\s+Immediate\s+false\s+\d+s\n$/)
    assert.match(await ok('get', 'ingressclass'), /^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s\.io\/ingress-nginx\s+<none>\s+\d+s\n$/)
    assert.match(await ok('get', 'runtimeclass'), /^NAME\s+HANDLER\s+AGE\ngvisor\s+runsc\s+\d+s\n$/)
    assert.match(await ok('get', 'pc', 'high'), /^high\s+1000\s+false\s+\d+s\s+PreemptLowerPriority$/m)
    // A bad one is rejected with the field named.
    const bad = session.file('bad-sc.yaml', 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: bad}\n')
    const r = await kubectl('create', '-f', bad)
    assert.notEqual(r.code, 0)
    assert.match(r.stderr, /The StorageClass "bad" is invalid: provisioner: Required value/)
  })

  it('kubectl create -f of a CSR and kubectl certificate approve: Pending, then Approved, the requester in spec.username', async () => {
    const dir = session.tmp
    execFileSync('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'alice.key'), '-subj', '/CN=alice', '-out', join(dir, 'alice.csr')], { stdio: 'ignore' })
    const request = readFileSync(join(dir, 'alice.csr')).toString('base64')
    const csr = session.file(
      'csr.yaml',
      `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: alice}\nspec:\n  request: ${request}\n  signerName: kubernetes.io/kube-apiserver-client\n  expirationSeconds: 86400\n  usages: [client auth]\n  username: someone-else\n`,
    )
    assert.equal((await ok('create', '-f', csr)).trim(), 'certificatesigningrequest.certificates.k8s.io/alice created')
    assert.match(await ok('get', 'csr'), /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\nalice\s+\d+s\s+kubernetes\.io\/kube-apiserver-client\s+(\S+)\s+24h\s+Pending\n$/)
    assert.equal((await ok('certificate', 'approve', 'alice')).trim(), 'certificatesigningrequest.certificates.k8s.io/alice approved')
    assert.match(await ok('get', 'csr', 'alice'), /\s+Approved\n$/)
    const approved = JSON.parse(await ok('get', 'csr', 'alice', '-o', 'json'))
    // The requester's name, whatever the body said (the session's identity).
    assert.notEqual(approved.spec.username, 'someone-else')
    assert.match(approved.spec.username, /^system:(anonymous|admin)$/)
    assert.equal(approved.status.conditions[0].type, 'Approved')
    assert.equal(approved.status.conditions[0].reason, 'KubectlApprove')
    assert.match(approved.status.conditions[0].lastUpdateTime, /^\d{4}-\d\d-\d\dT/)
  })

  it('kubectl get endpointslices, flowschemas and componentstatuses print the reference columns', async () => {
    const slice = session.file(
      'slice.yaml',
      'apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: web-abc, labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nports: [{name: http, port: 80}]\nendpoints: [{addresses: [10.1.0.1]}, {addresses: [10.1.0.2]}]\n',
    )
    await ok('create', '-f', slice)
    assert.match(await ok('get', 'endpointslices', 'web-abc'), /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\nweb-abc\s+IPv4\s+80\s+10\.1\.0\.1,10\.1\.0\.2\s+\d+s\n$/)
    // The kubernetes service's slice, beside its Endpoints.
    assert.match(await ok('get', 'endpointslices', 'kubernetes'), new RegExp(`^kubernetes\\s+IPv4\\s+${session.server.port}\\s+127\\.0\\.0\\.1\\s+\\d+s$`, 'm'))
    const fs = session.file('fs.yaml', 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: mine}\nspec:\n  priorityLevelConfiguration: {name: workload-low}\n  distinguisherMethod: {type: ByUser}\n')
    await ok('create', '-f', fs)
    assert.match(await ok('get', 'flowschemas', 'mine'), /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\nmine\s+workload-low\s+1000\s+ByUser\s+\d+s\s+(\?|False)\n$/)
    // The configuration controller fills in the Dangling condition: False (the level exists), True for a missing one.
    const missing = session.file('missing.yaml', 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: lost}\nspec:\n  priorityLevelConfiguration: {name: nowhere}\n')
    await ok('create', '-f', missing)
    const until = Date.now() + 10_000
    let rows = ''
    while (Date.now() < until && !(/^mine\s.*False$/m.test(rows) && /^lost\s.*True$/m.test(rows))) {
      await new Promise((r) => setTimeout(r, 200))
      rows = await ok('get', 'flowschemas', 'mine', 'lost')
    }
    assert.match(rows, /^mine\s+workload-low\s+1000\s+ByUser\s+\d+s\s+False$/m)
    assert.match(rows, /^lost\s+nowhere\s+1000\s+<none>\s+\d+s\s+True$/m)
    const lost = JSON.parse(await ok('get', 'flowschema', 'lost', '-o', 'json'))
    assert.equal(lost.status.conditions[0].message, 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object')
    assert.equal(lost.status.conditions[0].reason, 'NotFound')
    await ok('delete', 'flowschema', 'lost')
    const cs = await kubectl('get', 'componentstatuses')
    assert.equal(cs.code, 0, cs.stderr)
    assert.match(cs.stdout, /^NAME\s+STATUS\s+MESSAGE\s+ERROR\netcd-0\s+Healthy\s+ok\s*\n$/)
    assert.match(cs.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/)
  })

  it('priority and fairness: the reference bootstrap FlowSchemas in precedence order, and the response headers name the objects a request was classified into', async () => {
    const table = await ok('get', 'flowschemas')
    // (Without the one an earlier test of this suite creates.)
    const names = table.trim().split('\n').slice(1).map((line) => line.split(/\s+/)[0]).filter((n) => n !== 'mine')
    assert.deepEqual(names, [
      'exempt',
      'probes',
      'system-leader-election',
      'endpoint-controller',
      'workload-leader-election',
      'system-node-high',
      'system-nodes',
      'kube-controller-manager',
      'kube-scheduler',
      'kube-system-service-accounts',
      'service-accounts',
      'global-default',
      'catch-all',
    ])
    assert.match(table, /^global-default\s+global-default\s+9900\s+ByUser\s+\d+s\s+False$/m)
    assert.match(await ok('get', 'prioritylevelconfigurations', 'workload-low'), /^workload-low\s+Limited\s+100\s+128\s+6\s+50\s+\d+s$/m)
    // Both kinds in one command: two tables, names prefixed by kind and group as kubectl does for several kinds.
    const both = await ok('get', 'flowschemas,prioritylevelconfigurations')
    assert.match(both, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\nflowschema\.flowcontrol\.apiserver\.k8s\.io\/exempt\s+exempt\s+1\s+<none>\s+\d+[sm]\s+False$/m)
    assert.match(both, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE\nprioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/catch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+\d+[sm]$/m)
    assert.match(both, /^prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/exempt\s+Exempt\s+<none>\s+<none>\s+<none>\s+<none>\s+\d+[sm]$/m)
    const uid = async (kind: string, name: string) => (await ok('get', kind, name, '-o', 'jsonpath={.metadata.uid}')).trim()
    // Anonymous, so that the request is not system:masters' (exempt) but falls to global-default.
    // The configuration is re-read at most once a second, so ask until it reflects the objects just read.
    const schemaUid = await uid('flowschema', 'global-default')
    const levelUid = await uid('prioritylevelconfiguration', 'global-default')
    let reply = await session.server.get('/api/v1/namespaces/default/configmaps', {}, 'GET', undefined, 'anonymous')
    for (const until = Date.now() + 10_000; Date.now() < until && reply.headers['x-kubernetes-pf-prioritylevel-uid'] !== levelUid; ) {
      await new Promise((r) => setTimeout(r, 200))
      reply = await session.server.get('/api/v1/namespaces/default/configmaps', {}, 'GET', undefined, 'anonymous')
    }
    assert.equal(reply.headers['x-kubernetes-pf-flowschema-uid'], schemaUid)
    assert.equal(reply.headers['x-kubernetes-pf-prioritylevel-uid'], levelUid)
    // A user's own FlowSchema takes effect (the configuration is re-read within a second).
    const own = session.file(
      'own-fs.yaml',
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: anonymous-version}\nspec:\n  priorityLevelConfiguration: {name: workload-low}\n  matchingPrecedence: 50\n  rules:\n  - subjects: [{kind: Group, group: {name: system:unauthenticated}}]\n    nonResourceRules: [{verbs: [get], nonResourceURLs: [/version]}]\n',
    )
    await ok('create', '-f', own)
    const want = await uid('flowschema', 'anonymous-version')
    const deadline = Date.now() + 5000
    let got: unknown
    while (Date.now() < deadline && (got = (await session.server.get('/version', {}, 'GET', undefined, 'anonymous')).headers['x-kubernetes-pf-flowschema-uid']) !== want) await new Promise((r) => setTimeout(r, 200))
    assert.equal(got, want)
  })

  it('kubectl drain meets a PodDisruptionBudget: the eviction is refused with the reference 429 text; without the budget it goes', async () => {
    await ok('create', 'namespace', 'drain')
    const node = session.file('node.yaml', 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n')
    await ok('create', '-f', node)
    const pod = session.file('db.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: drain, labels: {app: db}}\nspec: {nodeName: node-1, containers: [{name: db, image: postgres}]}\n')
    await ok('create', '-f', pod)
    // A running, ready pod counts against the budget (a pending one does not, as in the reference).
    await ok('patch', 'pod', 'db', '-n', 'drain', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}')
    await ok('create', 'pdb', 'db', '-n', 'drain', '--selector=app=db', '--min-available=1')
    const drained = await kubectl('drain', 'node-1', '--pod-selector=app=db', '--force', '--timeout=8s')
    assert.notEqual(drained.code, 0)
    assert.match(drained.stdout + drained.stderr, /Cannot evict pod as it would violate the pod's disruption budget\./)
    assert.equal((await ok('get', 'node', 'node-1', '-o', 'jsonpath={.spec.unschedulable}')).trim(), 'true')
    assert.match(await ok('get', 'pdb', 'db', '-n', 'drain'), /^db\s+1\s+N\/A\s+0\s+\d+s$/m)
    await ok('delete', 'pdb', 'db', '-n', 'drain')
    const evicted = await kubectl('drain', 'node-1', '--pod-selector=app=db', '--force', '--timeout=20s', '--grace-period=0')
    assert.equal(evicted.code, 0, evicted.stderr)
    assert.match(evicted.stdout, /pod\/db evicted/)
  })

  it('an update without resourceVersion, or with "0", is unconditional where the reference allows it (nodes), a 409 where not (APIServices)', async () => {
    await ok('create', '-f', session.file('node-2.yaml', 'apiVersion: v1\nkind: Node\nmetadata: {name: node-2}\n'))
    const server = session.server
    const put = (path: string, body: unknown) => server.get(path, { 'content-type': 'application/json' }, 'PUT', JSON.stringify(body))
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-2', resourceVersion: '0', labels: { zone: 'a' } } }
    const written = await put('/api/v1/nodes/node-2', node)
    assert.equal(written.status, 200, written.body)
    assert.deepEqual(JSON.parse(written.body).metadata.labels, { zone: 'a' })
    const apiService = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 } }
    assert.equal((await server.get('/apis/apiregistration.k8s.io/v1/apiservices', { 'content-type': 'application/json' }, 'POST', JSON.stringify(apiService))).status, 201)
    const refused = await put('/apis/apiregistration.k8s.io/v1/apiservices/v1.example.com', apiService)
    assert.equal(refused.status, 409)
    assert.equal(JSON.parse(refused.body).message, 'Operation cannot be fulfilled on apiservices.apiregistration.k8s.io "v1.example.com": metadata.resourceVersion: Invalid value: 0x0: must be specified for an update')
  })

  it('kubectl expose rc of a controller created without a selector: the selector and labels come from its template', async () => {
    const rc = session.file('rc.yaml', 'apiVersion: v1\nkind: ReplicationController\nmetadata: {name: legacy}\nspec:\n  replicas: 1\n  template:\n    metadata: {labels: {app: legacy}}\n    spec: {containers: [{name: c, image: nginx}]}\n')
    await ok('create', '-f', rc)
    assert.equal((await ok('expose', 'rc', 'legacy', '--port=80')).trim(), 'service/legacy exposed')
    assert.equal((await ok('get', 'svc', 'legacy', '-o', 'jsonpath={.spec.selector.app}')).trim(), 'legacy')
    assert.match(await ok('get', 'all', '-l', 'app=legacy'), /replicationcontroller\/legacy\s+1\s+0\s+0/)
    assert.match(await ok('get', 'rc', 'legacy', '-o', 'wide'), /^legacy\s+1\s+0\s+0\s+\d+s\s+c\s+nginx\s+app=legacy$/m)
  })
})
