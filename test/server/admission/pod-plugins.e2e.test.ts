import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'
import { MAIN_KUBECTL } from '../../support/kubectl-versions.js'

/**
 * The simple pod and namespace admission plugins in the server, driven by the real kubectl:
 * enabled on the command line, with the toleration seconds options.
 */
describe(`admission: the pod and namespace plugins end to end [kubectl ${MAIN_KUBECTL.version}]`, function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'adm-pods-', {
      waitFor: 'ready',
      kubectl: MAIN_KUBECTL.tool,
      args: [
        '--enable-admission-plugins=AlwaysPullImages,NamespaceAutoProvision,DenyServiceExternalIPs,LimitPodHardAntiAffinityTopology,ExtendedResourceToleration',
        '--default-not-ready-toleration-seconds=60',
        '--default-unreachable-toleration-seconds=30',
      ],
    })
  })
  after(async () => {
    await session?.close()
  })


  it('a pod in a namespace not made yet: the namespace is made, the pod pulls Always and carries the default and extended resource tolerations', async () => {
    const pod = session.file(
      'pod.yaml',
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: web, namespace: auto}',
        'spec:',
        '  containers:',
        '  - name: web',
        '    image: nginx:1.27',
        '    imagePullPolicy: IfNotPresent',
        '    resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}',
        '',
      ].join('\n'),
    )
    await session.ok('create', '-f', pod)
    assert.equal(await session.ok('get', 'namespace', 'auto', '-o', 'jsonpath={.status.phase}'), 'Active')
    assert.equal(await session.ok('get', 'pod', 'web', '-n', 'auto', '-o', 'jsonpath={.spec.containers[0].imagePullPolicy}'), 'Always')
    const tolerations = JSON.parse(await session.ok('get', 'pod', 'web', '-n', 'auto', '-o', 'jsonpath={.spec.tolerations}')) as unknown[]
    // In the reference's order: DefaultTolerationSeconds runs before ExtendedResourceToleration.
    assert.deepEqual(tolerations, [
      { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 60 },
      { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 30 },
      { effect: 'NoSchedule', key: 'example.com/gpu', operator: 'Exists' },
    ])
  })

  it('a required anti-affinity over zones is refused', async () => {
    const pod = session.file(
      'anti.yaml',
      [
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: anti}',
        'spec:',
        '  containers: [{name: web, image: nginx:1.27}]',
        '  affinity:',
        '    podAntiAffinity:',
        '      requiredDuringSchedulingIgnoredDuringExecution:',
        '      - {labelSelector: {matchLabels: {app: web}}, topologyKey: topology.kubernetes.io/zone}',
        '',
      ].join('\n'),
    )
    const r = await session.run('create', '-f', pod)
    assert.notEqual(r.code, 0)
    assert.match(
      r.stderr,
      /Error from server \(Forbidden\): error when creating ".*anti\.yaml": pods "anti" is forbidden: affinity\.PodAntiAffinity\.RequiredDuringScheduling has TopologyKey topology\.kubernetes\.io\/zone but only key kubernetes\.io\/hostname is allowed/,
    )
  })

  it('a service with external IPs is refused', async () => {
    const r = await session.run('create', 'service', 'clusterip', 'ext', '--tcp=80:80', '--dry-run=client', '-o', 'yaml')
    assert.equal(r.code, 0)
    const svc = session.file('svc.yaml', r.stdout.replace('spec:\n', 'spec:\n  externalIPs: [203.0.113.7]\n'))
    const refused = await session.run('create', '-f', svc)
    assert.match(refused.stderr, /Error from server \(Forbidden\): error when creating ".*svc\.yaml": services "ext" is forbidden: Use of external IPs is denied by admission control/)
  })

  it('a new node carries the not-ready NoSchedule taint (TaintNodesByCondition, on by default)', async () => {
    await session.ok('create', '-f', session.file('node.yaml', 'apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n'))
    assert.equal(await session.ok('get', 'node', 'n1', '-o', 'jsonpath={.spec.taints}'), '[{"effect":"NoSchedule","key":"node.kubernetes.io/not-ready"}]')
  })
})
