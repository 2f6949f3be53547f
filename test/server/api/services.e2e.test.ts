import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

describe('api: service ranges from the command line, with the real kubectl (end to end)', function () {
  this.timeout(90_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-services-', {
      waitFor: 'ready',
      args: ['--service-cluster-ip-range=10.96.0.0/16', '--service-node-port-range=31000-31010', '--core-service-node-port=31005', '--endpoint-reconciler-type=none', '--allow-privileged=true'],
    })
  })
  after(async () => {
    await session?.close()
  })

  it('the kubernetes service takes the first address and the core node port', async () => {
    assert.match(await session.ok('get', 'svc', 'kubernetes'), /^kubernetes\s+NodePort\s+10\.96\.0\.1\s+<none>\s+443:31005\/TCP\s+\d+s$/m)
    // --endpoint-reconciler-type=none: the server writes no Endpoints for it.
    const ep = await session.run('get', 'endpoints', 'kubernetes')
    assert.equal(ep.stderr, 'Error from server (NotFound): endpoints "kubernetes" not found\n')
  })

  it('a NodePort service created with kubectl gets a port of the range and an address of the range', async () => {
    const manifest = session.file('np.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: np\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n')
    assert.equal(await session.ok('create', '-f', manifest), 'service/np created\n')
    const row = await session.ok('get', 'svc', 'np', '--no-headers')
    const m = /^np\s+NodePort\s+10\.96\.(\d+)\.(\d+)\s+<none>\s+80:(\d+)\/TCP/.exec(row)
    assert.ok(m, row)
    assert.ok(Number(m[3]) >= 31000 && Number(m[3]) <= 31010 && Number(m[3]) !== 31005, row)
    const bad = session.file('bad.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 31005\n')
    const r = await session.run('create', '-f', bad)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /The Service "bad" is invalid: spec\.ports\[0\]\.nodePort: Invalid value: 31005: provided port is already allocated/)
  })

  it('the default ServiceCIDR, and an IPAddress for each allocated cluster IP, released with its Service', async () => {
    const cidr = JSON.parse(await session.ok('get', 'servicecidrs', 'kubernetes', '-o', 'json')) as { spec: { cidrs: string[] }; status: { conditions: Array<Record<string, string>> } }
    assert.deepEqual(cidr.spec.cidrs, ['10.96.0.0/16'])
    assert.deepEqual(
      cidr.status.conditions.map((c) => [c.type, c.status, c.message]),
      [['Ready', 'True', 'Kubernetes default Service CIDR is ready']],
    )
    assert.equal(await session.ok('create', 'service', 'clusterip', 'ipsvc', '--tcp=80'), 'service/ipsvc created\n')
    const ip = (await session.ok('get', 'svc', 'ipsvc', '-o', 'jsonpath={.spec.clusterIP}')).trim()
    const listed = await session.ok('get', 'ipaddresses')
    assert.match(listed, /^10\.96\.0\.1\s+services\/default\/kubernetes\s/m)
    assert.match(listed, new RegExp(`^${ip.replace(/\./g, '\\.')}\\s+services/default/ipsvc\\s`, 'm'))
    const address = JSON.parse(await session.ok('get', 'ipaddress', ip, '-o', 'json')) as { metadata: { labels: Record<string, string> }; spec: { parentRef: Record<string, string> } }
    assert.deepEqual(address.metadata.labels, { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' })
    assert.deepEqual(address.spec.parentRef, { resource: 'services', namespace: 'default', name: 'ipsvc' })
    await session.ok('delete', 'service', 'ipsvc')
    const gone = await session.run('get', 'ipaddress', ip)
    assert.equal(gone.stderr, `Error from server (NotFound): ipaddresses.networking.k8s.io "${ip}" not found\n`)
  })

  it('--allow-privileged=true admits privileged containers', async () => {
    const pod = session.file('priv.yaml', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: priv\nspec:\n  containers:\n  - name: c\n    image: busybox\n    securityContext:\n      privileged: true\n')
    assert.equal(await session.ok('create', '-f', pod), 'pod/priv created\n')
  })
})
