/**
 * Protobuf for the beta and alpha kinds: with --runtime-config=api/all=true and their feature
 * gates, every non-GA kind the server serves is created with a protobuf body, read back and
 * listed as protobuf (decoded by the codec), and kubectl 1.32's typed describers (which ask
 * for protobuf) read ServiceCIDRs, IPAddresses and VolumeAttributesClasses from their beta
 * versions. scheduling.k8s.io/v1alpha2 has no .proto in the reference tree the codec is built
 * from: its kinds are served as JSON even to a client that asks for protobuf only.
 */
import assert from 'node:assert/strict'
import { generateKeyPairSync, sign } from 'node:crypto'
import { RESOURCES } from '../../../src/server/api/generated/resources.js'
import { type ProtobufCodec, loadProtobufCodec } from '../../../src/core/protobuf/index.js'
import { rawHttps } from '../../support/raw-https.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { makeCa } from '../authentication/helpers.js'

const PB = 'application/vnd.kubernetes.protobuf'
type Obj = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const GATES = ['ClusterTrustBundle', 'CoordinatedLeaderElection', 'DRADeviceTaintRules', 'GenericWorkload', 'MutatingAdmissionPolicy', 'PodCertificateRequest', 'StorageVersionAPI', 'StorageVersionMigrator']
const NO_PROTO = new Set(['scheduling.k8s.io/v1alpha2'])
const NON_GA = RESOURCES.filter((r) => /(alpha|beta)\d/.test(r.version))

const raw = rawHttps

/** A valid object of each non-GA kind (names carry the version: versions of a group share storage). */
async function objects(): Promise<Record<string, Obj>> {
  const ca = await makeCa('bundle-ca')
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const podUID = '0b9b7a0e-5c5e-4f7e-9a51-3f0c2d6a1b11'
  // With the defaults the server fills in (allocationMode and count), so the spec reads back unchanged.
  const request = { deviceClassName: 'gpus', allocationMode: 'ExactCount', count: 1 }
  const claimSpec = (version: string) => ({ devices: { requests: [version === 'v1beta1' ? { name: 'gpu', ...request } : { name: 'gpu', exactly: request }] } })
  // With the defaults of its match constraints (SetDefaults_MatchResources, SetDefaults_Rule).
  const policy = { matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['cronjobs'], scope: '*' }] }, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }], reinvocationPolicy: 'Never', failurePolicy: 'Fail' }
  return {
    ClusterTrustBundle: { spec: { trustBundle: ca.certPem } },
    PodCertificateRequest: {
      spec: {
        signerName: 'example.com/signer',
        podName: 'p',
        podUID,
        serviceAccountName: 'default',
        serviceAccountUID: '1b9b7a0e-5c5e-4f7e-9a51-3f0c2d6a1b12',
        nodeName: 'n',
        nodeUID: '2b9b7a0e-5c5e-4f7e-9a51-3f0c2d6a1b13',
        maxExpirationSeconds: 86400,
        pkixPublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
        proofOfPossession: sign(null, Buffer.from(podUID), privateKey).toString('base64'),
      },
    },
    IPAddress: { spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } } },
    ServiceCIDR: { spec: { cidrs: ['10.200.0.0/24'] } },
    VolumeAttributesClass: { driverName: 'csi.example.com', parameters: { iops: '3000' } },
    MutatingAdmissionPolicy: { spec: policy },
    MutatingAdmissionPolicyBinding: { spec: { policyName: 'nothing' } },
    LeaseCandidate: { spec: { leaseName: 'leader', binaryVersion: '1.35.0', emulationVersion: '1.35.0', strategy: 'OldestEmulationVersion' } },
    StorageVersion: { spec: {} },
    DeviceClass: { spec: {} },
    DeviceTaintRule: { spec: { taint: { key: 'example.com/broken', effect: 'NoSchedule' } } },
    ResourceClaim: (v: string) => ({ spec: claimSpec(v) }),
    ResourceClaimTemplate: (v: string) => ({ spec: { spec: claimSpec(v) } }),
    ResourceSlice: { spec: { driver: 'dra.example.com', pool: { name: 'pool', generation: 1, resourceSliceCount: 1 }, allNodes: true } },
    StorageVersionMigration: { spec: { resource: { group: 'apps', resource: 'deployments' } } },
    PodGroup: { spec: { schedulingPolicy: { basic: {} } } },
    Workload: { spec: { podGroupTemplates: [{ name: 'workers', schedulingPolicy: { gang: { minCount: 2 } } }] } },
  } as unknown as Record<string, Obj>
}

describe('protobuf: the beta and alpha kinds (end to end)', function () {
  this.timeout(120_000)
  let session: KubectlSession
  let codec: ProtobufCodec
  let samples: Record<string, Obj>

  before(async function () {
    // kubectl 1.32 on purpose: the last test is about its typed describers, which read these kinds'
    // beta versions, and about its -v=8 log format.
    session = await KubectlSession.open(this, 'api-protobuf-beta-', {
      waitFor: 'ready',
      args: ['--runtime-config=api/all=true', `--feature-gates=${GATES.map((g) => `${g}=true`).join(',')}`],
      kubectl: 'kubectl-1.32',
    })
    codec = await loadProtobufCodec()
    samples = await objects()
  })
  after(async () => {
    await session?.close()
  })

  it('every non-GA kind: create with a protobuf body, get and list as protobuf', async () => {
    const server = session.server
    const failures: string[] = []
    for (const r of NON_GA) {
      const gv = `${r.group}/${r.version}`
      if (NO_PROTO.has(gv)) continue
      const base = `/apis/${gv}${r.namespaced ? '/namespaces/default' : ''}/${r.resource}`
      const name = r.kind === 'StorageVersion' ? `${r.version}.apps.deployments` : r.kind === 'IPAddress' ? `192.168.7.${r.version.length}` : `${r.version}-${r.resource}`
      const sample = samples[r.kind] as Obj | ((v: string) => Obj)
      const object = { apiVersion: gv, kind: r.kind, metadata: { name }, ...(typeof sample === 'function' ? sample(r.version) : sample) }
      const created = await raw(server, base, { 'Content-Type': PB, Accept: PB }, 'POST', codec.encode(object))
      if (created.status !== 201 || created.contentType !== PB) {
        failures.push(`${gv} ${r.kind} create: ${created.status} ${created.contentType} ${created.contentType === PB ? JSON.stringify(codec.decode(created.body)) : created.body.toString()}`)
        continue
      }
      try {
        await check()
      } catch (err) {
        failures.push(`${gv} ${r.kind}: ${(err as Error).message}`)
      }
      async function check() {
      const back = codec.decode(created.body)
      assert.equal(back.kind, r.kind)
      assert.equal((back.metadata as Obj).name, name)
      const got = await raw(server, `${base}/${name}`, { Accept: PB })
      assert.equal(got.contentType, PB, `${gv} ${r.kind} get`)
      const read = codec.decode(got.body)
      assert.deepEqual(read.spec ?? read.driverName, object.spec ?? object.driverName, `${gv} ${r.kind}: the spec read back`)
      assert.equal((read.metadata as Obj).uid, (back.metadata as Obj).uid)
      const listed = await raw(server, base, { Accept: PB })
      assert.equal(listed.contentType, PB, `${gv} ${r.kind} list`)
      const list = codec.decode(listed.body)
      assert.equal(list.kind, `${r.kind}List`)
      assert.ok((list.items as Obj[]).some((i) => i.metadata.name === name), `${gv} ${r.kind}: ${name} in the list`)
      }
    }
    assert.deepEqual(failures, [])
  })

  it('scheduling.k8s.io/v1alpha2 (no .proto in the reference tree): served as JSON, whatever the Accept header', async () => {
    const server = session.server
    const base = '/apis/scheduling.k8s.io/v1alpha2/namespaces/default/workloads'
    const created = await server.get(base, { 'Content-Type': 'application/json' }, 'POST', JSON.stringify({ apiVersion: 'scheduling.k8s.io/v1alpha2', kind: 'Workload', metadata: { name: 'w' }, ...samples.Workload }))
    assert.equal(created.status, 201, created.body)
    // The server writes what it can: an object the codec has no message for falls through to JSON.
    const pbOnly = await raw(server, `${base}/w`, { Accept: PB })
    assert.equal(pbOnly.status, 200)
    assert.equal(pbOnly.contentType, 'application/json')
    assert.equal(JSON.parse(pbOnly.body.toString()).metadata.name, 'w')
    const either = await raw(server, `${base}/w`, { Accept: `${PB},application/json` })
    assert.equal(either.status, 200)
    assert.equal(either.contentType, 'application/json')
  })

  it("kubectl 1.32's typed describers read ServiceCIDRs, IPAddresses and VolumeAttributesClasses as protobuf from their beta versions", async () => {
    for (const [resource, name, shows] of [
      ['servicecidr', 'v1beta1-servicecidrs', /CIDRs:\s+10\.200\.0\.0\/24/],
      ['ipaddress', '192.168.7.7', /Parent Reference:/],
      ['volumeattributesclass', 'v1beta1-volumeattributesclasses', /DriverName:\s+csi\.example\.com/],
    ] as const) {
      const r = await session.run('describe', resource, name, '-v=8')
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, new RegExp(`^Name:\\s+${name.replace(/\./g, '\\.')}$`, 'm'))
      assert.match(r.stdout, shows)
      // The typed client asked for protobuf and got it.
      const get = new RegExp(`GET https://127\\.0\\.0\\.1:\\d+/apis/[a-z0-9.]+/v1beta1/[a-z]+/${name.replace(/\./g, '\\.')}\n(?:.*\n){0,3}.*Accept: application/vnd\\.kubernetes\\.protobuf,application/json\n`)
      assert.match(r.stderr, get, r.stderr.split('\n').filter((l) => / GET |Accept/.test(l)).join('\n'))
      assert.match(r.stderr, /"Response Body" body=<\n\s+00000000 {2}6b 38 73 00 /, 'a protobuf body (the k8s\\0 magic)')
    }
  })
})
