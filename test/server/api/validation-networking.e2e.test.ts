/**
 * Validation of networking.k8s.io, autoscaling, certificates.k8s.io and events.k8s.io through
 * the real kubectl 1.35 (one server for the file): `kubectl apply` of invalid objects and
 * `kubectl patch` of an immutable field print the reference's errors. The expected texts are
 * kubectl's rendering (cmdutil.checkErr) of the reference's messages
 * (`pkg/apis/networking/validation`, `pkg/apis/autoscaling/validation`,
 * `pkg/apis/certificates/validation`, `pkg/apis/core/validation/events.go`).
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../support/kubectl-session.js'

describe('api: object validation of networking, autoscaling, certificates and events with the real kubectl (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-validation-net-', { waitFor: 'ready' })
  })
  after(async () => {
    await session?.close()
  })

  const apply = async (name: string, yaml: string) => session.run('apply', '-f', session.file(name, yaml))

  it('kubectl apply of an Ingress with an IP host and a path without pathType', async () => {
    const r = await apply(
      'ing.yaml',
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec:\n  rules:\n  - host: 1.2.3.4\n    http:\n      paths:\n      - path: /\n        backend: {service: {name: web, port: {number: 80}}}\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stdout, '')
    assert.equal(
      r.stderr,
      'The Ingress "web" is invalid: \n* spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address\n* spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified\n',
    )
  })

  it('kubectl create ingress with a wildcard host, a prefix path and TLS is accepted', async () => {
    const r = await session.run('create', 'ingress', 'catch', '--class=nginx', '--rule=*.example.com/api*=web:80,tls=web-tls')
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'ingress.networking.k8s.io/catch created\n')
    const ingress = JSON.parse(await session.ok('get', 'ingress', 'catch', '-o', 'json'))
    assert.deepEqual(ingress.spec.rules[0].http.paths[0], { path: '/api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } })
  })

  it('kubectl apply of a NetworkPolicy whose exception is outside its CIDR', async () => {
    const r = await apply(
      'np.yaml',
      'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np}\nspec:\n  podSelector: {}\n  ingress:\n  - from:\n    - ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/16]}\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The NetworkPolicy "np" is invalid: spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`\n')
  })

  it('kubectl apply of an autoscaling/v2 HPA with maxReplicas below minReplicas', async () => {
    const r = await apply(
      'hpa.yaml',
      'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 3\n  maxReplicas: 2\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The HorizontalPodAutoscaler "web" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`\n')
  })

  it('kubectl apply of an autoscaling/v1 HPA with a CPU target of 0: the internal (v2) path', async () => {
    const r = await apply(
      'hpa1.yaml',
      'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web1}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 2\n  targetCPUUtilizationPercentage: 0\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The HorizontalPodAutoscaler "web1" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0\n')
  })

  it('kubectl apply of a CSR whose request is not a PEM certificate request', async () => {
    const r = await apply(
      'csr.yaml',
      'apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: bad}\nspec:\n  request: aGVsbG8=\n  signerName: example.com/signer\n  usages: [client auth]\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The CertificateSigningRequest "bad" is invalid: spec.request: Invalid value: "aGVsbG8=": PEM block type must be CERTIFICATE REQUEST\n')
  })

  it('kubectl apply of an events.k8s.io/v1 Event without eventTime', async () => {
    const r = await apply(
      'ev.yaml',
      'apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: e1}\nregarding: {kind: Pod, name: p, namespace: default}\nreason: Created\naction: Create\nreportingController: example.com/c\nreportingInstance: c-1\ntype: Normal\n',
    )
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Event "e1" is invalid: eventTime: Required value\n')
  })

  it('kubectl patch of an immutable field: an IngressClass controller', async () => {
    const created = await apply('ic.yaml', 'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: example.com/ingress-nginx}\n')
    assert.equal(created.code, 0, created.stderr)
    const r = await session.run('patch', 'ingressclass', 'nginx', '--type=merge', '-p', '{"spec":{"controller":"example.com/other"}}')
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The IngressClass "nginx" is invalid: spec.controller: Invalid value: "example.com/other": field is immutable\n')
  })
})
