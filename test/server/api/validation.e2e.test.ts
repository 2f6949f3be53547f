/**
 * Object validation end to end: the built server answers an invalid object with the
 * reference's 422 Status (message, details and causes in order), and the real kubectl (1.35
 * and 1.32) prints it as it prints a real cluster's, through create, apply, server-side dry run and
 * patch. Expected texts are the reference's (validation.go messages, kubectl's
 * MultilineError layout), written by hand.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachKubectl } from '../../support/kubectl-versions.js'

describeEachKubectl('api: object validation with the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-', { waitFor: 'ready', kubectl: client.tool })
  })
  after(async () => {
    await session?.close()
  })

  it('a POST of an invalid Pod answers 422 with the Status, its details and causes in order', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'a' }, { name: 'Bad_Name', image: 'nginx' }] } }
    const reply = await session.server.get('/api/v1/namespaces/default/pods', { 'Content-Type': 'application/json' }, 'POST', JSON.stringify(pod))
    assert.equal(reply.status, 422)
    const label =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
    assert.deepEqual(JSON.parse(reply.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Pod "web" is invalid: [spec.containers[0].image: Required value, spec.containers[1].name: Invalid value: "Bad_Name": ${label}]`,
      reason: 'Invalid',
      details: {
        name: 'web',
        kind: 'Pod',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' },
          { reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${label}`, field: 'spec.containers[1].name' },
        ],
      },
      code: 422,
    })
  })

  it('kubectl apply of an invalid Pod prints every cause on its own line', async () => {
    const file = session.file('pod.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  restartPolicy: Sometimes\n  containers:\n  - name: c\n    image: nginx\n    ports:\n    - containerPort: 70000\n')
    const r = await session.run('apply', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The Pod "web" is invalid: \n* spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive\n* spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"\n',
    )
  })

  it('kubectl create of an invalid Service, and the same through a server-side dry run', async () => {
    const file = session.file('svc.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: Bad\n  ports:\n  - port: 80\n')
    const expected = 'The Service "web" is invalid: spec.type: Unsupported value: "Bad": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"\n'
    const created = await session.run('create', '-f', file)
    assert.equal(created.code, 1)
    assert.equal(created.stderr, expected)
    const dry = await session.run('create', '--dry-run=server', '-f', file)
    assert.equal(dry.code, 1)
    assert.equal(dry.stderr, expected)
  })

  it('kubectl apply of a ConfigMap with a bad key; an immutable one refuses a patch of its data', async () => {
    const bad = session.file('cm-bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  "a b": "1"\n')
    const r = await session.run('apply', '-f', bad)
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      "The ConfigMap \"bad\" is invalid: data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')\n",
    )
    const fixed = session.file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixed\ndata:\n  a: "1"\nimmutable: true\n')
    assert.equal(await session.ok('apply', '-f', fixed), 'configmap/fixed created\n')
    const p = await session.run('patch', 'configmap', 'fixed', '-p', '{"data":{"a":"2"}}')
    assert.equal(p.code, 1)
    assert.equal(p.stderr, 'The ConfigMap "fixed" is invalid: data: Forbidden: field is immutable when `immutable` is set\n')
  })

  it('a valid Pod is stored with the reference defaults kubectl shows', async () => {
    const file = session.file('ok.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: ok\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n    ports:\n    - containerPort: 80\n')
    assert.equal(await session.ok('apply', '-f', file), 'pod/ok created\n')
    const pod = JSON.parse(await session.ok('get', 'pod', 'ok', '-o', 'json')) as { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } }
    const { spec } = pod
    assert.equal(spec.dnsPolicy, 'ClusterFirst')
    assert.equal(spec.restartPolicy, 'Always')
    assert.equal(spec.schedulerName, 'default-scheduler')
    assert.equal(spec.terminationGracePeriodSeconds, 30)
    assert.equal(spec.enableServiceLinks, true)
    assert.deepEqual(spec.securityContext, {})
    const c = spec.containers[0]!
    assert.equal(c.imagePullPolicy, 'IfNotPresent')
    assert.equal(c.terminationMessagePath, '/dev/termination-log')
    assert.equal(c.terminationMessagePolicy, 'File')
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }])
  })

  it('a pod update: ValidatePodSpec and ValidatePodUpdate each report a negative activeDeadlineSeconds', async () => {
    const r = await session.run('patch', 'pod', 'ok', '-p', '{"spec":{"activeDeadlineSeconds":-5}}')
    assert.equal(r.code, 1)
    assert.equal(
      r.stderr,
      'The Pod "ok" is invalid: \n* spec.activeDeadlineSeconds: Invalid value: -5: must be between 1 and 2147483647, inclusive\n* spec.activeDeadlineSeconds: Invalid value: -5: must be between 0 and 2147483647, inclusive\n',
    )
    const image = await session.run('patch', 'pod', 'ok', '-p', '{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}')
    assert.equal(image.stdout, 'pod/ok patched\n')
  })

  it('kubectl apply of an invalid Service: a port name is required when there are several', async () => {
    const file = session.file('svc-ports.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: ports\nspec:\n  ports:\n  - port: 80\n  - port: 81\n')
    const r = await session.run('apply', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Service "ports" is invalid: \n* spec.ports[0].name: Required value\n* spec.ports[1].name: Required value\n')
  })

  it('the same Invalid answer through server-side apply, a server dry run, and both', async () => {
    const file = session.file(
      'deploy-bad.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: -2\n  selector:\n    matchLabels:\n      app: bad\n  template:\n    metadata:\n      labels:\n        app: bad\n    spec:\n      containers:\n      - name: c\n        image: nginx\n        imagePullPolicy: Sometimes\n',
    )
    const expected =
      'The Deployment "bad" is invalid: \n* spec.replicas: Invalid value: -2: must be greater than or equal to 0\n* spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"\n'
    for (const args of [['--server-side'], ['--dry-run=server'], ['--server-side', '--dry-run=server']]) {
      const r = await session.run('apply', ...args, '-f', file)
      assert.equal(r.code, 1, args.join(' '))
      assert.equal(r.stderr, expected, args.join(' '))
    }
    assert.equal((await session.run('get', 'deployment', 'bad')).code, 1)
  })

  it("kubectl patch of a Service's clusterIP: reported as clusterIPs[0] changing (normalizeClusterIPs)", async () => {
    const file = session.file('svc-ip.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: fixed-ip\nspec:\n  ports:\n  - port: 80\n')
    assert.equal(await session.ok('apply', '-f', file), 'service/fixed-ip created\n')
    const ip = (await session.ok('get', 'svc', 'fixed-ip', '-o', 'jsonpath={.spec.clusterIP}')).trim()
    const other = ip.replace(/\d+$/, (n) => String((Number(n) % 200) + 20))
    const r = await session.run('patch', 'svc', 'fixed-ip', '-p', JSON.stringify({ spec: { clusterIP: other } }))
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `The Service "fixed-ip" is invalid: spec.clusterIPs[0]: Invalid value: ["${other}"]: may not change once set\n`)
  })

  it('kubectl get -o yaml of a new Pod and Service: the reference defaults, nothing more (SetDefaults_Pod, SetDefaults_Service)', async () => {
    const pod = session.file('pod-defaults.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: defaults\nspec:\n  containers:\n  - name: web\n    image: nginx:1.27\n    ports:\n    - containerPort: 80\n')
    const svc = session.file('svc-defaults.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: defaults\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n')
    await session.ok('create', '-f', pod)
    await session.ok('create', '-f', svc)
    // What differs per object is replaced: uid, times, resource version, the allocated IP, the
    // token volume's generated name.
    const normal = (text: string) =>
      text
        .replace(/kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}/g, 'kube-api-access-NAME')
        .replace(/uid: \S+/, 'uid: UID')
        .replace(/creationTimestamp: "[^"]+"/, 'creationTimestamp: TIME')
        .replace(/resourceVersion: "\d+"/, 'resourceVersion: RV')
        .replace(/\d+\.\d+\.\d+\.\d+/g, 'IP')
    assert.equal(
      normal(await session.ok('get', 'pod', 'defaults', '-o', 'yaml')),
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata:',
        '  creationTimestamp: TIME',
        '  generation: 1',
        '  name: defaults',
        '  namespace: default',
        '  resourceVersion: RV',
        '  uid: UID',
        'spec:',
        '  containers:',
        '  - image: nginx:1.27',
        '    imagePullPolicy: IfNotPresent',
        '    name: web',
        '    ports:',
        '    - containerPort: 80',
        '      protocol: TCP',
        '    resources: {}',
        '    terminationMessagePath: /dev/termination-log',
        '    terminationMessagePolicy: File',
        // The ServiceAccount admission plugin's account and token volume, as a cluster shows them.
        '    volumeMounts:',
        '    - mountPath: /var/run/secrets/kubernetes.io/serviceaccount',
        '      name: kube-api-access-NAME',
        '      readOnly: true',
        '  dnsPolicy: ClusterFirst',
        '  enableServiceLinks: true',
        // The Priority admission plugin (default on): no class and no default class.
        '  preemptionPolicy: PreemptLowerPriority',
        '  priority: 0',
        '  restartPolicy: Always',
        '  schedulerName: default-scheduler',
        '  securityContext: {}',
        '  serviceAccount: default',
        '  serviceAccountName: default',
        '  terminationGracePeriodSeconds: 30',
        // The default-on DefaultTolerationSeconds admission plugin's two tolerations.
        '  tolerations:',
        '  - effect: NoExecute',
        '    key: node.kubernetes.io/not-ready',
        '    operator: Exists',
        '    tolerationSeconds: 300',
        '  - effect: NoExecute',
        '    key: node.kubernetes.io/unreachable',
        '    operator: Exists',
        '    tolerationSeconds: 300',
        '  volumes:',
        '  - name: kube-api-access-NAME',
        '    projected:',
        '      defaultMode: 420',
        '      sources:',
        '      - serviceAccountToken:',
        '          expirationSeconds: 3607',
        '          path: token',
        '      - configMap:',
        '          items:',
        '          - key: ca.crt',
        '            path: ca.crt',
        '          name: kube-root-ca.crt',
        '      - downwardAPI:',
        '          items:',
        '          - fieldRef:',
        '              apiVersion: v1',
        '              fieldPath: metadata.namespace',
        '            path: namespace',
        'status:',
        '  phase: Pending',
        '  qosClass: BestEffort',
        '',
      ].join('\n'),
    )
    assert.equal(
      normal(await session.ok('get', 'svc', 'defaults', '-o', 'yaml')),
      [
        'apiVersion: v1',
        'kind: Service',
        'metadata:',
        '  creationTimestamp: TIME',
        '  name: defaults',
        '  namespace: default',
        '  resourceVersion: RV',
        '  uid: UID',
        'spec:',
        '  clusterIP: IP',
        '  clusterIPs:',
        '  - IP',
        '  internalTrafficPolicy: Cluster',
        '  ipFamilies:',
        '  - IPv4',
        '  ipFamilyPolicy: SingleStack',
        '  ports:',
        '  - port: 80',
        '    protocol: TCP',
        '    targetPort: 80',
        '  selector:',
        '    app: web',
        '  sessionAffinity: None',
        '  type: ClusterIP',
        'status:',
        '  loadBalancer: {}',
        '',
      ].join('\n'),
    )
  })
})
