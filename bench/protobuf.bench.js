// Protobuf codec speed: decode (bytes -> JSON form) and encode (JSON form -> bytes) of typical
// objects against JSON.parse / JSON.stringify of the same objects, measured in the same run (the
// baseline). Goal: within 1.5x of JSON for every object (stretch: faster).
// Needs the build (npm run build, or npx tsc -p tsconfig.json): reads dist/.
//   node bench/protobuf.bench.js          BENCH_MS=300 (per measurement) for a quick run, BENCH_ONLY=Pod for the cases matching
import { existsSync } from 'node:fs'
import { report } from './support/report.js'

const dist = new URL('../dist/core/protobuf/index.js', import.meta.url)
if (!existsSync(dist)) {
  console.error('dist/core/protobuf/index.js is missing: build first with `npm run build`')
  process.exit(1)
}
const { loadProtobufCodec } = await import(dist.href)
const codec = await loadProtobufCodec()
const budgetMs = Number(process.env.BENCH_MS ?? 1000)
const ROUNDS = 6

const meta = (name, i = 0) => ({
  name,
  namespace: 'default',
  uid: `6b1f0c7e-6a55-4f7e-9d0b-${String(i).padStart(12, '0')}`,
  resourceVersion: String(1000 + i),
  creationTimestamp: '2024-05-06T07:08:09Z',
  labels: { app: 'bench', tier: 'backend', index: String(i) },
  annotations: { 'bench/owner': 'protobuf' },
})

/** About 2 KB, as in bench/storage-media.bench.js. */
function configMap(i) {
  const data = {}
  for (let k = 0; k < 16; k++) data[`key-${k}`] = `value-${i}-${k}-`.padEnd(96, 'x')
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(`cm-${String(i).padStart(5, '0')}`, i), data }
}

function secret(i) {
  const data = {}
  for (let k = 0; k < 8; k++) data[`key-${k}`] = Buffer.from(`secret-${i}-${k}-`.padEnd(120, 's')).toString('base64')
  return { apiVersion: 'v1', kind: 'Secret', metadata: meta(`secret-${i}`, i), type: 'Opaque', data }
}

const managedFields = [
  { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2024-05-06T07:08:09Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
]

const container = (name) => ({
  name,
  image: `registry.example.com/team/${name}:1.2.3`,
  command: ['/bin/server', '--port=8080'],
  args: ['--verbose', '--config=/etc/app/config.yaml'],
  ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
  env: [{ name: 'MODE', value: 'production' }, { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
  volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'kube-api-access', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
  livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 5, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  imagePullPolicy: 'IfNotPresent',
})

const podSpec = () => ({
  volumes: [{ name: 'config', configMap: { name: 'app-config', defaultMode: 420 } }],
  containers: [container('app'), container('sidecar')],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  serviceAccountName: 'default',
  serviceAccount: 'default',
  nodeName: 'node-1',
  securityContext: {},
  schedulerName: 'default-scheduler',
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  priority: 0,
  enableServiceLinks: true,
  preemptionPolicy: 'PreemptLowerPriority',
})

function pod(i) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...meta(`pod-${i}`, i), generateName: 'app-', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'app-5d8f', uid: '0c4d9a5e-1111-2222-3333-444455556666', controller: true, blockOwnerDeletion: true }], managedFields },
    spec: podSpec(),
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-06T07:08:19Z' }],
      hostIP: '10.0.0.1',
      podIP: '10.244.0.7',
      podIPs: [{ ip: '10.244.0.7' }],
      startTime: '2024-05-06T07:08:10Z',
      containerStatuses: [{ name: 'app', state: { running: { startedAt: '2024-05-06T07:08:12Z' } }, lastState: {}, ready: true, restartCount: 0, image: 'registry.example.com/team/app:1.2.3', imageID: 'registry.example.com/team/app@sha256:0123456789abcdef', containerID: 'containerd://abcdef', started: true }],
      qosClass: 'Burstable',
    },
  }
}

function deployment(i) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...meta(`deploy-${i}`, i), generation: 3, managedFields },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'bench' } },
      template: { metadata: { labels: { app: 'bench' } }, spec: podSpec() },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: 3,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2024-05-06T07:08:19Z', lastTransitionTime: '2024-05-06T07:08:19Z', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }],
    },
  }
}

function service(i) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(`svc-${i}`, i),
    spec: {
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }, { name: 'https', protocol: 'TCP', port: 443, targetPort: 'https' }],
      selector: { app: 'bench' },
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  }
}

const list = (kind, make, count) => ({
  apiVersion: 'v1',
  kind: `${kind}List`,
  metadata: { resourceVersion: '123456' },
  items: Array.from({ length: count }, (_, i) => {
    const { apiVersion: _a, kind: _k, ...rest } = make(i)
    return rest
  }),
})

const cases = [
  ['ConfigMap (2 KB)', configMap(1)],
  ['Secret', secret(1)],
  ['Pod', pod(1)],
  ['Deployment', deployment(1)],
  ['Service', service(1)],
  ['ConfigMapList, 100 items', list('ConfigMap', configMap, 100)],
  ['PodList, 100 items', list('Pod', pod, 100)],
  ['ConfigMapList, 1000 items', list('ConfigMap', configMap, 1000)],
]

/** How many calls take about 20 ms. */
function calibrate(fn) {
  let iterations = 1
  for (;;) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < iterations; i++) fn()
    if (Number(process.hrtime.bigint() - start) > 20e6) return iterations
    iterations *= 2
  }
}

/**
 * Nanoseconds per call of the baseline and of the codec: the best of ROUNDS rounds each, the two
 * taking turns so that a busy moment of the machine weighs on both.
 */
function measurePair(baseline, codecCall) {
  const fns = [baseline, codecCall]
  const iterations = fns.map(calibrate)
  const best = [Infinity, Infinity]
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of [0, 1]) {
      const start = process.hrtime.bigint()
      let count = 0
      const until = start + BigInt(Math.round((budgetMs / ROUNDS / 2) * 1e6))
      let now = start
      while (now < until) {
        for (let i = 0; i < iterations[k]; i++) fns[k]()
        count += iterations[k]
        now = process.hrtime.bigint()
      }
      best[k] = Math.min(best[k], Number(now - start) / count)
    }
  }
  return best
}

const format = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`)

console.log('| object | bytes json / proto | JSON.parse | proto decode | × JSON | JSON.stringify | proto encode | × JSON |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
let worst = 0
let worstCase = ''
let sink = 0
const only = new RegExp(process.env.BENCH_ONLY ?? '')
for (const [name, object] of cases.filter(([name]) => only.test(name))) {
  const json = JSON.stringify(object)
  const proto = codec.encode(object)
  const jsonBytes = Buffer.from(json)
  const [parse, decode] = measurePair(() => (sink += JSON.parse(jsonBytes.toString('utf8')).kind.length), () => (sink += codec.decode(proto).kind.length))
  const [stringify, encode] = measurePair(() => (sink += Buffer.from(JSON.stringify(object)).length), () => (sink += codec.encode(object).length))
  const decodeRatio = decode / parse
  const encodeRatio = encode / stringify
  if (Math.max(decodeRatio, encodeRatio) > worst) worstCase = `${name}, ${decodeRatio >= encodeRatio ? 'decode' : 'encode'}`
  worst = Math.max(worst, decodeRatio, encodeRatio)
  console.log(`| ${name} | ${jsonBytes.length} / ${proto.length} | ${format(parse)} | ${format(decode)} | ${decodeRatio.toFixed(2)} | ${format(stringify)} | ${format(encode)} | ${encodeRatio.toFixed(2)} |`)
}
console.log(`\nworst case: ${worst.toFixed(2)}x JSON (goal: within 1.5x) ${worst <= 1.5 ? 'MET' : 'NOT MET'}${sink < 0 ? '' : ''}`)
report(import.meta.url, [{ subject: `protobuf codec, the worst case (${worstCase})`, baseline: 'JSON.parse / JSON.stringify of the same object', ratio: worst, goal: '≤ 1.5x', met: worst <= 1.5 }])
