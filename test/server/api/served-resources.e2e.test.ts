/**
 * Acceptance of issue #16 item 1: the resources the server serves are the reference's default
 * set, derived here from the reference's OpenAPI document (test/fixtures/api-resources, copied
 * by scripts/copy-api-resource-fixtures.mjs), not from the server's own generated table. The
 * document lists every version the reference has; which of them it serves by default at an
 * emulated release is the release notes' knowledge, written below. Each served resource then
 * answers list, create, get and delete, and kubectl api-resources prints it.
 */
import assert from 'node:assert/strict'
import { webcrypto } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as x509 from '@peculiar/x509'
import type { ApiServer } from '../../support/api-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { describeEachStoreAndKubectl } from '../../support/kubectl-versions.js'

type Ops = Record<string, { action: string; gvk?: { group: string; version: string; kind: string } }>
const PATHS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/api-resources/openapi-resources.json'), 'utf8')) as Record<string, Ops>

/** GA resources the document has that the reference only serves by default from a later release. */
const GA_SINCE: Record<string, number> = {
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicies': 36,
  'admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings': 36,
  'networking.k8s.io/v1/ipaddresses': 33,
  'networking.k8s.io/v1/servicecidrs': 33,
  'resource.k8s.io/v1/deviceclasses': 34,
  'resource.k8s.io/v1/resourceclaims': 34,
  'resource.k8s.io/v1/resourceclaimtemplates': 34,
  'resource.k8s.io/v1/resourceslices': 34,
  'storage.k8s.io/v1/volumeattributesclasses': 34,
  '/v1/pods/resize': 33,
}
/** The review APIs are built on other branches (authentication #14, authorization #15). */
const BUILT_ELSEWHERE = new Set(['authentication.k8s.io', 'authorization.k8s.io'])
/** Subresources the reference serves that this server has not built yet (streaming and proxies). */
interface Expected {
  namespaced: boolean
  kind: string
  verbs: Set<string>
  subresources: Set<string>
}

/** `<group>/<version>/<resource>` of every GA resource the reference serves at 1.<minor>. */
function expectedAt(minor: number): Map<string, Expected> {
  const out = new Map<string, Expected>()
  const verbOf: Record<string, string> = { get: 'get', list: 'list', post: 'create', put: 'update', patch: 'patch', delete: 'delete', deletecollection: 'deletecollection' }
  for (const [path, ops] of Object.entries(PATHS)) {
    const m = /^\/(?:api\/(v\d+)|apis\/([^/]+)\/(v\d+))\/(namespaces\/\{namespace\}\/)?([a-z0-9]+)(\/\{name\})?(?:\/([a-z]+))?$/.exec(path)
    if (!m) continue
    const [, coreVersion, group = '', groupVersion, nsPart, resource, , sub] = m
    const version = coreVersion ?? groupVersion!
    const name = resource!
    const key = `${group}/${version}/${name}`
    if ((GA_SINCE[key] ?? 0) > minor) continue
    const entry = out.get(key) ?? { namespaced: false, kind: '', verbs: new Set<string>(), subresources: new Set<string>() }
    if (nsPart) entry.namespaced = true
    if (sub) {
      if ((GA_SINCE[`${key}/${sub}`] ?? 0) <= minor) entry.subresources.add(sub)
    } else {
      for (const op of Object.values(ops)) {
        entry.kind ||= op.gvk?.kind ?? ''
        if (verbOf[op.action]) entry.verbs.add(verbOf[op.action]!)
      }
    }
    out.set(key, entry)
  }
  return out
}

/** The served resources, from legacy discovery (`/api/v1` and every `/apis/<group>/<version>`). */
async function served(server: ApiServer): Promise<Map<string, { namespaced: boolean; kind: string; verbs: string[]; subresources: string[] }>> {
  const get = async (path: string) => {
    const reply = await server.get(path)
    assert.equal(reply.status, 200, `${path}: ${reply.body}`)
    return JSON.parse(reply.body) as Record<string, unknown>
  }
  const lists = [await get('/api/v1')]
  for (const g of (await get('/apis')).groups as Array<{ versions: Array<{ groupVersion: string }> }>) {
    for (const v of g.versions) lists.push(await get(`/apis/${v.groupVersion}`))
  }
  const out = new Map<string, { namespaced: boolean; kind: string; verbs: string[]; subresources: string[] }>()
  for (const list of lists) {
    const gv = String(list.groupVersion)
    const prefix = gv.includes('/') ? gv : `/${gv}`
    for (const r of list.resources as Array<{ name: string; namespaced: boolean; kind: string; verbs: string[] }>) {
      const [resource, sub] = r.name.split('/')
      const entry = out.get(`${prefix}/${resource!}`) ?? { namespaced: r.namespaced, kind: r.kind, verbs: r.verbs, subresources: [] }
      if (sub) entry.subresources.push(sub)
      out.set(`${prefix}/${resource!}`, entry)
    }
  }
  return out
}

function assertServesDefaultSet(actual: Awaited<ReturnType<typeof served>>, expected: Map<string, Expected>): void {
  for (const [key, entry] of actual) {
    const want = expected.get(key)
    assert.ok(want, `${key} is served but not in the reference's default set`)
    assert.equal(entry.namespaced, want.namespaced, `${key} scope`)
    assert.equal(entry.kind, want.kind, `${key} kind`)
    // Discovery's watch comes from the watch paths the fixture leaves out; the rest must match.
    assert.deepEqual(entry.verbs.filter((v) => v !== 'watch').sort(), [...want.verbs].sort(), `${key} verbs`)
    assert.deepEqual(entry.subresources.sort(), [...want.subresources].sort(), `${key} subresources`)
  }
  const missing = [...expected.keys()].filter((key) => !actual.has(key) && !BUILT_ELSEWHERE.has(key.split('/')[0]!))
  assert.deepEqual(missing, [], 'resources of the default set that are not served')
}

/** A PKCS#10 request (base64 of its PEM) for the CSR sample, made by the test that creates it. */
let csrRequest = ''

async function makeCsrRequest(): Promise<string> {
  const ec = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = (await webcrypto.subtle.generateKey(ec, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=crud', keys, signingAlgorithm: ec }, webcrypto)
  return Buffer.from(csr.toString('pem')).toString('base64')
}

/** A minimal valid object of each kind that validates more than its name. */
function objectFor(key: string, kind: string, apiVersion: string, name: string): Record<string, unknown> {
  const base = { apiVersion, kind, metadata: { name } }
  const template = { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }
  const selector = { matchLabels: { app: name } }
  const bodies: Record<string, Record<string, unknown>> = {
    '/v1/pods': { spec: template.spec },
    '/v1/services': { spec: { ports: [{ port: 80 }] } },
    '/v1/replicationcontrollers': { spec: { template } },
    'apps/v1/deployments': { spec: { selector, template } },
    'apps/v1/replicasets': { spec: { selector, template } },
    'apps/v1/statefulsets': { spec: { selector, template, serviceName: name } },
    'apps/v1/daemonsets': { spec: { selector, template } },
    // ValidatePersistentVolumeClaim / ValidatePersistentVolume: access modes, sizes, a source.
    '/v1/persistentvolumeclaims': { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    '/v1/persistentvolumes': { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'example.com.d', volumeHandle: 'h' } } },
    '/v1/podtemplates': { template },
    // ValidateEvent: the involved object is in the event's namespace (crud).
    '/v1/events': { involvedObject: { kind: 'Pod', name: 'p', namespace: 'crud' } },
    // ValidateControllerRevision: data is mandatory.
    'apps/v1/controllerrevisions': { data: {}, revision: 1 },
    'batch/v1/jobs': { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } },
    'batch/v1/cronjobs': { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...template.spec, restartPolicy: 'Never' } } } } } },
    'autoscaling/v1/horizontalpodautoscalers': { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, maxReplicas: 3 } },
    'autoscaling/v2/horizontalpodautoscalers': { spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, maxReplicas: 3 } },
    // ValidateCertificateSigningRequestCreate: a request whose signature verifies.
    'certificates.k8s.io/v1/certificatesigningrequests': { spec: { request: csrRequest, signerName: 'example.com/signer', usages: ['client auth'] } },
    // The networking.k8s.io validation: a backend or rules, a controller, CIDRs.
    'networking.k8s.io/v1/ingresses': { spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } },
    'networking.k8s.io/v1/ingressclasses': { spec: { controller: 'example.com/ingress-controller' } },
    'networking.k8s.io/v1/servicecidrs': { spec: { cidrs: ['192.0.2.0/24'] } },
    // ValidateEventCreate of events.k8s.io/v1: the strict rules of new-style events.
    'events.k8s.io/v1/events': {
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/controller',
      reportingInstance: 'instance-1',
      action: 'Test',
      reason: 'Tested',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: 'crud' },
    },
    'rbac.authorization.k8s.io/v1/rolebindings': { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
    'rbac.authorization.k8s.io/v1/clusterrolebindings': { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
    'scheduling.k8s.io/v1/priorityclasses': { value: 10 },
    'storage.k8s.io/v1/storageclasses': { provisioner: 'example.com/p' },
    'storage.k8s.io/v1/volumeattributesclasses': { driverName: 'example.com/d', parameters: { iops: '100' } },
    'storage.k8s.io/v1/volumeattachments': { spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' } },
    'storage.k8s.io/v1/csistoragecapacities': { storageClassName: 'standard' },
    'node.k8s.io/v1/runtimeclasses': { handler: 'runc' },
    'admissionregistration.k8s.io/v1/validatingadmissionpolicies': {
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] }, validations: [{ expression: 'object.spec.replicas <= 5' }] },
    },
    'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings': { spec: { policyName: 'replicas.example.com', validationActions: ['Deny'] } },
    'discovery.k8s.io/v1/endpointslices': { addressType: 'IPv4', endpoints: [] },
    'apiregistration.k8s.io/v1/apiservices': { metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15 } },
    'resource.k8s.io/v1/resourceslices': { spec: { driver: 'gpu.example.com', pool: { name: 'node-1', resourceSliceCount: 1 }, nodeName: 'node-1' } },
    'flowcontrol.apiserver.k8s.io/v1/flowschemas': { spec: { priorityLevelConfiguration: { name: 'global-default' } } },
    'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations': { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  }
  if (key === 'networking.k8s.io/v1/ipaddresses') {
    // ValidateIPAddressName: the name is the address.
    return { ...base, metadata: { name: '192.0.2.10' }, spec: { parentRef: { group: '', resource: 'services', namespace: 'crud', name: 'x' } } }
  }
  if (key === 'apiextensions.k8s.io/v1/customresourcedefinitions') {
    return {
      ...base,
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    }
  }
  return { ...base, ...(bodies[key] ?? {}) }
}

describeEachStoreAndKubectl('api: the reference default set of resources, from its OpenAPI document (end to end)', 'served-resources-e2e', function (store, client) {
  this.timeout(180_000)
  let session: KubectlSession
  let server: ApiServer

  before(async function () {
    session = await KubectlSession.open(this, 'api-served-', { waitFor: 'ready', store, kubectl: client.tool })
    server = session.server
  })
  after(async () => {
    await session?.close()
  })

  it('discovery serves exactly the default set at 1.35 (22 group versions with the review APIs)', async () => {
    const expected = expectedAt(35)
    const groupVersions = new Set([...expected.keys()].map((k) => k.split('/').slice(0, 2).join('/')))
    assert.equal(groupVersions.size, 22)
    assert.equal(expected.size, 66)
    assertServesDefaultSet(await served(server), expected)
    // The aggregated document names the same resources.
    const reply = await server.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })
    const aggregated = (JSON.parse(reply.body).items as Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: Array<{ resource: string }> }> }>).flatMap((g) =>
      g.versions.flatMap((v) => v.resources.map((r) => `${g.metadata.name}/${v.version}/${r.resource}`)),
    )
    const legacy = [...(await served(server)).keys()].filter((k) => !k.startsWith('/'))
    assert.deepEqual(aggregated.sort(), legacy.sort())
  })

  it('each resource answers list, create, get and delete (bindings: create; componentstatuses: list and get)', async () => {
    const resources = await served(server)
    csrRequest ||= await makeCsrRequest()
    await session.ok('create', 'namespace', 'crud')
    for (const [key, entry] of resources) {
      const [group, version, resource] = key.split('/') as [string, string, string]
      const apiVersion = group ? `${group}/${version}` : version
      const base = `${group ? `/apis/${group}` : '/api'}/${version}${entry.namespaced ? '/namespaces/crud' : ''}/${resource}`
      if (entry.verbs.includes('list')) {
        const list = await server.get(base)
        assert.equal(list.status, 200, `list ${key}: ${list.body}`)
        assert.equal(JSON.parse(list.body).kind, `${entry.kind}List`, key)
      }
      if (key === '/v1/componentstatuses') {
        const cs = await server.get('/api/v1/componentstatuses/etcd-0')
        assert.equal(cs.status, 200, cs.body)
        assert.equal(JSON.parse(cs.body).conditions[0].status, 'True')
        continue
      }
      if (key === '/v1/bindings') {
        await session.ok('run', 'bound', '--image=nginx', '-n', 'crud')
        const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'node-1' } }
        const created = await server.get(base, { 'content-type': 'application/json' }, 'POST', JSON.stringify(binding))
        assert.equal(created.status, 201, created.body)
        assert.equal(JSON.parse(created.body).status, 'Success')
        assert.equal((await session.ok('get', 'pod', 'bound', '-n', 'crud', '-o', 'jsonpath={.spec.nodeName}')).trim(), 'node-1')
        // A pod is bound once: the second binding is the reference's 409.
        const again = await server.get('/api/v1/namespaces/crud/pods/bound/binding', { 'content-type': 'application/json' }, 'POST', JSON.stringify({ ...binding, target: { kind: 'Node', name: 'node-2' } }))
        assert.equal(again.status, 409, again.body)
        assert.equal(JSON.parse(again.body).message, 'Operation cannot be fulfilled on pods "bound": pod bound is already assigned to node "node-1"')
        continue
      }
      if (!entry.verbs.includes('get')) {
        // The review APIs are create-only; their behaviour is tested with their own suites.
        assert.deepEqual(entry.verbs, ['create'], key)
        continue
      }
      const body = objectFor(key, entry.kind, apiVersion, `x-${resource.slice(0, 40)}`)
      const name = (body.metadata as { name: string }).name
      const created = await server.get(base, { 'content-type': 'application/json' }, 'POST', JSON.stringify(body))
      assert.equal(created.status, 201, `create ${key}: ${created.body}`)
      assert.equal(JSON.parse(created.body).apiVersion, apiVersion, key)
      const got = await server.get(`${base}/${name}`)
      assert.equal(got.status, 200, `get ${key}: ${got.body}`)
      assert.equal(JSON.parse(got.body).kind, entry.kind, key)
      const deleted = await server.get(`${base}/${name}`, {}, 'DELETE')
      assert.equal(deleted.status, 200, `delete ${key}: ${deleted.body}`)
    }
  })

  it('kubectl api-resources prints the reference table: one line per resource, short names and kinds', async () => {
    const expected = expectedAt(35)
    const lines = (await session.ok('api-resources')).trim().split('\n')
    assert.match(lines[0]!, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/)
    void expected
    // One line per served resource; autoscaling's two versions are one (kubectl prints the preferred version).
    assert.equal(lines.length - 1, (await served(server)).size - 1)
    for (const line of [
      /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler$/m,
      /^certificatesigningrequests\s+csr\s+certificates\.k8s\.io\/v1\s+false\s+CertificateSigningRequest$/m,
      /^storageclasses\s+sc\s+storage\.k8s\.io\/v1\s+false\s+StorageClass$/m,
      /^componentstatuses\s+cs\s+v1\s+false\s+ComponentStatus$/m,
      /^events\s+ev\s+events\.k8s\.io\/v1\s+true\s+Event$/m,
      /^flowschemas\s+flowcontrol\.apiserver\.k8s\.io\/v1\s+false\s+FlowSchema$/m,
      /^deviceclasses\s+resource\.k8s\.io\/v1\s+false\s+DeviceClass$/m,
    ]) {
      assert.match(lines.join('\n'), line)
    }
  })
})

describe('api: the reference default set at --emulated-version=1.32 (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'api-served-132-', { waitFor: 'ready', args: ['--emulated-version=1.32'] })
  })
  after(async () => {
    await session?.close()
  })

  it('serves what 1.32 served: no resource.k8s.io/v1, ServiceCIDRs, IPAddresses, VolumeAttributesClasses or pods/resize', async () => {
    const expected = expectedAt(32)
    assert.equal(expected.has('resource.k8s.io/v1/deviceclasses'), false)
    assertServesDefaultSet(await served(session.server), expected)
    const version = JSON.parse((await session.server.get('/version')).body)
    assert.equal(version.emulationMinor, '32')
  })
})
