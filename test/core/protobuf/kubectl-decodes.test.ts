/**
 * The reference's own protobuf decoder reads what the codec encodes: kubectl 1.32's generator
 * subcommands post protobuf and accept a protobuf reply, and with `-o json` print the object they
 * got back, decoded by Go's generated unmarshallers and marshalled by Go's encoding/json. A stand-in
 * server (in this process, on 127.0.0.1) decodes the request with the codec, adds what a server
 * adds (uid, resourceVersion, timestamps, managedFields, a status), replies with codec.encode(),
 * and kubectl's output must be that object, field for field and in the same key order.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadProtobufCodec, PROTOBUF_MEDIA_TYPE, type ProtobufCodec } from '../../../src/core/protobuf/index.js'
import { requireTool, toolCommand } from '../../support/tools.js'

// kubectl 1.32 on purpose: the expected objects follow its Go types (1.35's JSON leaves out a
// zero creationTimestamp, which 1.32's prints as null), as do the bodies of kubectl-bodies.test.ts.
const KUBECTL = toolCommand('kubectl-1.32')

type Obj = Record<string, unknown>

const COMMANDS: Record<string, string[]> = {
  namespace: ['create', 'namespace', 'team-a'],
  configmap: ['create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=empty='],
  secret: ['create', 'secret', 'generic', 'creds', '--from-literal=user=admin'],
  deployment: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=0', '--port=8080'],
  service: ['create', 'service', 'clusterip', 'front', '--tcp=80:http', '--tcp=443:8443'],
  job: ['create', 'job', 'once', '--image=busybox', '--', 'echo', 'hi'],
  cronjob: ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *'],
  role: ['create', 'role', 'reader', '--verb=get,list', '--resource=pods'],
  'clusterrole-aggregated': ['create', 'clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate-to-agg=true'],
  rolebinding: ['create', 'rolebinding', 'rb', '--role=reader', '--user=alice'],
  clusterrolebinding: ['create', 'clusterrolebinding', 'crb', '--clusterrole=view', '--group=readers'],
  token: ['create', 'token', 'robot', '--duration=10m', '--audience=api'],
  priorityclass: ['create', 'priorityclass', 'high', '--value=1000'],
  pdb: ['create', 'poddisruptionbudget', 'budget', '--selector=app=web', '--min-available=50%'],
  quota: ['create', 'quota', 'q', '--hard=cpu=1500m,memory=2Gi'],
  ingress: ['create', 'ingress', 'ing', '--rule=example.com/path*=svc:8080'],
  serviceaccount: ['create', 'serviceaccount', 'robot'],
}

/** Differences kubectl shows that the codec does not match yet, with the reason (reported as skipped, never silently). */
const KNOWN_GAPS: Record<string, string> = {
  token:
    "Go's JSON prints TokenRequestSpec.boundObjectRef, a pointer without omitempty, as null when the body has none; the codec's JSON leaves a missing pointer out",
}

const samples = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/protobuf/samples.json'), 'utf8')) as { apiVersion: string; kind: string; object: Obj }[]

/** Fields of the (newer) reference that kubectl 1.32's Go types do not have: Go drops them. */
const NEWER_THAN_KUBECTL = new Set(['fileKeyRef', 'stopSignal', 'restartPolicyRules', 'hostnameOverride', 'schedulingGroup', 'podCertificate', 'terminatingReplicas'])

/** Paths where what kubectl printed differs from what was sent, except for the known reasons. */
function unexplainedDifferences(sent: unknown, printed: unknown, path: string, out: string[]): string[] {
  if (JSON.stringify(sent) === JSON.stringify(printed)) return out
  const key = path.slice(path.lastIndexOf('.') + 1)
  if (printed === undefined && NEWER_THAN_KUBECTL.has(key)) return out
  // Go's Quantity prints its canonical form.
  if (sent === '0.5' && printed === '500m') return out
  if (sent && printed && typeof sent === 'object' && typeof printed === 'object' && Array.isArray(sent) === Array.isArray(printed)) {
    if (Array.isArray(sent) && Array.isArray(printed) && sent.length !== printed.length) out.push(`${path}: ${sent.length} items sent, ${printed.length} printed`)
    else for (const k of new Set([...Object.keys(sent), ...Object.keys(printed)])) unexplainedDifferences((sent as Obj)[k], (printed as Obj)[k], Array.isArray(sent) ? `${path}[${k}]` : `${path}.${k}`, out)
    return out
  }
  out.push(`${path}: sent ${JSON.stringify(sent)}, kubectl printed ${JSON.stringify(printed)}`)
  return out
}

/** What a server adds to a created object, with every special type the codec converts. */
function asCreated(object: Obj): Obj {
  const metadata = object.metadata as Obj
  const created: Obj = {
    ...object,
    metadata: {
      ...metadata,
      namespace: metadata.namespace ?? (object.kind === 'Namespace' || object.kind === 'PriorityClass' || object.kind === 'ClusterRole' ? undefined : 'default'),
      uid: '6a1f2c4e-0b7d-4d8e-9f10-1234567890ab',
      resourceVersion: '4242',
      generation: 1,
      creationTimestamp: '2024-01-02T03:04:05Z',
      labels: { ...(metadata.labels as Obj | undefined), 'example.com/team': 'a' },
      annotations: { note: 'created by the stand-in server' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: false, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kubectl-create', operation: 'Update', apiVersion: object.apiVersion, time: '2024-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:example.com/team': {} } } } }],
    },
  }
  if (created.metadata && (created.metadata as Obj).namespace === undefined) delete (created.metadata as Obj).namespace
  if (object.kind === 'Deployment') {
    created.status = {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      unavailableReplicas: 1,
      conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2024-01-02T03:04:06Z', lastTransitionTime: '2024-01-02T03:04:07Z', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }],
    }
  }
  if (object.kind === 'Namespace') created.status = { phase: 'Active' }
  if (object.kind === 'TokenRequest') created.status = { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', expirationTimestamp: '2024-01-02T03:14:05Z' }
  return created
}

describe('protobuf codec: kubectl 1.32 decodes what the codec encodes', function () {
  this.timeout(120_000)
  let codec: ProtobufCodec
  let server: Server
  let home: string
  let kubeconfig: string
  const replies: Obj[] = []
  // Turns the decoded request into the reply.
  let respond: (request: Obj) => Obj = asCreated

  before(async function () {
    requireTool(this, 'kubectl-1.32')
    codec = await loadProtobufCodec()
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0]
        if (req.method === 'POST' && req.headers['content-type'] === PROTOBUF_MEDIA_TYPE) {
          const reply = respond(codec.decode(Buffer.concat(chunks)))
          replies.push(reply)
          res.writeHead(201, { 'content-type': PROTOBUF_MEDIA_TYPE })
          res.end(codec.encode(reply))
          return
        }
        const discovery: Record<string, Obj> = {
          '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
          '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
          '/api/v1': { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get'] }] },
        }
        res.writeHead(discovery[path] ? 200 : 404, { 'content-type': 'application/json' })
        res.end(JSON.stringify(discovery[path] ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    home = mkdtempSync(join(tmpdir(), 'codec-kubectl-'))
    kubeconfig = join(home, 'kubeconfig')
    const { port } = server.address() as AddressInfo
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]\ncurrent-context: c\n`,
    )
  })

  after(() => {
    server?.close()
    if (home) rmSync(home, { recursive: true, force: true })
  })

  const kubectl = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(KUBECTL, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(home, 'cache')}`, ...args], { env: { ...process.env, HOME: home }, timeout: 30_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
      )
    })

  const create = async (args: string[]) => {
    const split = args.indexOf('--')
    const head = split < 0 ? args : args.slice(0, split)
    const tail = split < 0 ? [] : args.slice(split)
    replies.length = 0
    const printed = JSON.parse(await kubectl([...head, '-o', 'json', '--show-managed-fields', ...tail])) as Obj
    assert.equal(replies.length, 1, 'kubectl posted one protobuf body')
    return printed
  }

  for (const [name, args] of Object.entries(COMMANDS)) {
    if (KNOWN_GAPS[name]) {
      it.skip(`${name}: kubectl prints the object the codec encoded [KNOWN GAP: ${KNOWN_GAPS[name]}]`, () => {})
      continue
    }
    it(`${name}: kubectl prints the object the codec encoded`, async () => {
      respond = asCreated
      const printed = await create(args)
      // What Go decoded and printed is what the codec sent; its decode has Go's key order too.
      assert.deepEqual(printed, replies[0])
      const decoded = codec.decode(codec.encode(replies[0]))
      assert.equal(JSON.stringify(decoded), JSON.stringify(printed))
    })
  }

  // The fully filled samples of the round-trip test, sent as the reply to a create of their kind:
  // Go's decoder must read every field the codec wrote (bar the ones kubectl 1.32 predates).
  for (const [name, args] of Object.entries(COMMANDS)) {
    it(`${name}: kubectl reads every field of a fully filled object`, async () => {
      respond = (request) => {
        const sample = samples.find((s) => s.apiVersion === request.apiVersion && s.kind === request.kind)
        assert.ok(sample, `no sample for ${request.apiVersion} ${request.kind}`)
        const object = structuredClone(sample.object)
        const metadata = object.metadata as Obj
        metadata.name = (request.metadata as Obj).name
        if (request.kind !== 'Namespace' && 'namespace' in metadata) metadata.namespace = 'default'
        return object
      }
      const printed = await create(args)
      assert.deepEqual(unexplainedDifferences(replies[0], printed, name, []), [])
    })
  }
})
