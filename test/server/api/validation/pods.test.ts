/**
 * Pods: invalid objects and updates answer the reference's messages and causes
 * (pkg/apis/core/validation/validation.go ValidatePodCreate, ValidatePodUpdate; the strings
 * written from that source, not from this server's output).
 */
import assert from 'node:assert/strict'
import { type Case, createAnswer, invalidCreates, prepared, strategyOf, updateAnswer, validCreates } from './support.js'

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"

const pods = () => strategyOf('', 'v1', 'pods')
const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ metadata: { name: 'web', ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } })
const withContainer = (c: Record<string, unknown>, spec: Record<string, unknown> = {}) => pod({ containers: [{ name: 'c', image: 'nginx', ...c }], ...spec })

const cases: Case[] = [
  { name: 'no containers', object: pod({ containers: [] }), message: 'Pod "web" is invalid: spec.containers: Required value', causes: [['spec.containers', 'FieldValueRequired', 'Required value']] },
  {
    name: 'a container name that is not a DNS-1123 label',
    object: withContainer({ name: 'Bad_Name' }),
    message: `Pod "web" is invalid: spec.containers[0].name: Invalid value: "Bad_Name": ${LABEL_MSG}`,
    causes: [['spec.containers[0].name', 'FieldValueInvalid', `Invalid value: "Bad_Name": ${LABEL_MSG}`]],
  },
  {
    name: 'two containers without images (both errors, in brackets)',
    object: pod({ containers: [{ name: 'a' }, { name: 'b' }] }),
    message: 'Pod "web" is invalid: [spec.containers[0].image: Required value, spec.containers[1].image: Required value]',
    causes: [
      ['spec.containers[0].image', 'FieldValueRequired', 'Required value'],
      ['spec.containers[1].image', 'FieldValueRequired', 'Required value'],
    ],
  },
  { name: 'duplicate container names', object: pod({ containers: [{ name: 'c', image: 'a' }, { name: 'c', image: 'b' }] }), message: 'Pod "web" is invalid: spec.containers[1].name: Duplicate value: "c"' },
  {
    name: 'a container port out of range',
    object: withContainer({ ports: [{ containerPort: 70000 }] }),
    message: 'Pod "web" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
  },
  {
    name: 'an unsupported port protocol',
    object: withContainer({ ports: [{ containerPort: 80, protocol: 'HTTP' }] }),
    message: 'Pod "web" is invalid: spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
  },
  {
    name: "an environment variable name with '='",
    object: withContainer({ env: [{ name: 'a=b', value: '1' }] }),
    message: `Pod "web" is invalid: spec.containers[0].env[0].name: Invalid value: "a=b": a valid environment variable name must consist only of printable ASCII characters other than '='`,
  },
  {
    name: 'an env valueFrom with two sources',
    object: withContainer({ env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' }, secretKeyRef: { name: 's', key: 'k' } } }] }),
    message: 'Pod "web" is invalid: spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time',
  },
  {
    name: 'requests above limits (the quantity printed canonically)',
    object: withContainer({ resources: { requests: { cpu: '2000m' }, limits: { cpu: '1' } } }),
    message: 'Pod "web" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
  },
  {
    name: 'a negative memory limit (SetDefaults_Pod copies it into the requests first)',
    object: withContainer({ resources: { limits: { memory: '-1Gi' } } }),
    message:
      'Pod "web" is invalid: [spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0, spec.containers[0].resources.requests[memory]: Invalid value: "-1Gi": must be greater than or equal to 0]',
  },
  { name: 'a mount of an unknown volume', object: withContainer({ volumeMounts: [{ name: 'data', mountPath: '/data' }] }), message: 'Pod "web" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"' },
  {
    name: 'a volume with two sources',
    object: pod({ volumes: [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }] }),
    message: 'Pod "web" is invalid: spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type',
  },
  {
    name: 'a config map volume item with an absolute path',
    object: pod({ volumes: [{ name: 'v', configMap: { name: 'cm', items: [{ key: 'k', path: '/etc/x' }] } }] }),
    message: 'Pod "web" is invalid: spec.volumes[0].configMap.items[0].path: Invalid value: "/etc/x": must be a relative path',
  },
  {
    name: 'an unsupported restart policy',
    object: pod({ restartPolicy: 'Sometimes' }),
    message: 'Pod "web" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
  },
  {
    name: 'an unsupported DNS policy',
    object: pod({ dnsPolicy: 'Nope' }),
    message: 'Pod "web" is invalid: spec.dnsPolicy: Unsupported value: "Nope": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
  },
  {
    name: 'dnsPolicy None without dnsConfig',
    object: pod({ dnsPolicy: 'None' }),
    message: 'Pod "web" is invalid: spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None',
  },
  {
    name: 'a toleration without key whose operator is not Exists',
    object: pod({ tolerations: [{ operator: 'Equal', value: 'x' }] }),
    message: 'Pod "web" is invalid: spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
  },
  { name: 'a probe without a handler', object: withContainer({ livenessProbe: { periodSeconds: 5 } }), message: 'Pod "web" is invalid: spec.containers[0].livenessProbe: Required value: must specify a handler type' },
  {
    name: 'a liveness probe whose successThreshold is not 1',
    object: withContainer({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }),
    message: 'Pod "web" is invalid: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
  },
  { name: 'an invalid hostname', object: pod({ hostname: 'Host_1' }), message: `Pod "web" is invalid: spec.hostname: Invalid value: "Host_1": ${LABEL_MSG}` },
  {
    name: 'a topology spread constraint with maxSkew 0',
    object: pod({ topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' }] }),
    message: 'Pod "web" is invalid: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
  },
  {
    name: 'a node affinity weight out of range',
    object: pod({ affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }] } } }),
    message: 'Pod "web" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100',
  },
  { name: 'ephemeral containers on create', object: pod({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }), message: 'Pod "web" is invalid: spec.ephemeralContainers: Forbidden: cannot be set on create' },
  {
    name: 'an invalid label value in metadata',
    object: pod({}, { labels: { app: '-bad' } }),
    message:
      "Pod \"web\" is invalid: metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  },
  {
    name: 'a negative runAsUser',
    object: withContainer({ securityContext: { runAsUser: -1 } }),
    message: 'Pod "web" is invalid: spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
  },
]

describe('validation: core/v1 Pod (ValidatePodCreate)', () => {
  invalidCreates(pods, cases)
  validCreates(pods, [
    ['a minimal pod', pod({})],
    [
      'a full pod: ports, env, resources, probes, volumes, mounts, security context, affinity, tolerations, topology spread',
      pod({
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            ports: [{ name: 'http', containerPort: 80 }],
            env: [{ name: 'MODE', value: 'x' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
            livenessProbe: { httpGet: { path: '/', port: 'http' } },
            readinessProbe: { tcpSocket: { port: 80 } },
            volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'cfg', mountPath: '/etc/cfg', readOnly: true }],
            securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
        volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }, { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'a.conf' }] } }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }] } } },
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } }],
        securityContext: { fsGroup: 2000 },
      }),
    ],
  ])

  const base = pod({ activeDeadlineSeconds: 30, tolerations: [{ key: 'a', operator: 'Exists' }] })
  it('update: a new image is allowed', () => {
    assert.equal(updateAnswer(pods(), base, (o) => ((o.spec as { containers: Array<{ image: string }> }).containers[0]!.image = 'nginx:2')), undefined)
  })
  it('update: containers may not be added', () => {
    const got = updateAnswer(pods(), base, (o) => (o.spec as { containers: unknown[] }).containers.push({ name: 'd', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }))
    assert.equal(got?.message, 'Pod "web" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers')
  })
  it('update: activeDeadlineSeconds may only decrease', () => {
    const got = updateAnswer(pods(), base, (o) => ((o.spec as { activeDeadlineSeconds: number }).activeDeadlineSeconds = 60))
    assert.equal(got?.message, 'Pod "web" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value')
  })
  it('update: an existing toleration may not change', () => {
    const got = updateAnswer(pods(), base, (o) => ((o.spec as { tolerations: unknown[] }).tolerations = [{ key: 'b', operator: 'Exists' }]))
    assert.equal(got?.message, 'Pod "web" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds')
  })
  it('update: any other spec field is forbidden, naming the updatable ones', () => {
    const got = updateAnswer(pods(), base, (o) => ((o.spec as { restartPolicy: string }).restartPolicy = 'Never'))
    assert.ok(got?.message.startsWith('Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'), got?.message)
  })
  it('status update (ValidatePodStatusUpdate): the node name may not change through status', () => {
    const got = updateAnswer(pods(), base, (o) => ((o.spec as { nodeName: string }).nodeName = 'n1'), 'status')
    assert.equal(got?.message, 'Pod "web" is invalid: status.nodeName: Forbidden: may not be changed directly')
    assert.equal(createAnswer(pods(), base), undefined)
  })
  it('status update: an invalid pod IP', () => {
    const got = updateAnswer(pods(), base, (o) => (o.status = { ...(o.status as object), podIPs: [{ ip: '10.0.0.300' }] }), 'status')
    assert.equal(got?.message, 'Pod "web" is invalid: status.podIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')
  })
})

describe('defaulting: core/v1 Pod (SetDefaults_Pod) and its QoS class (qos.GetPodQOS)', () => {
  it('limits without requests become the requests; cpu and memory limits everywhere make it Guaranteed', () => {
    const o = prepared(pods(), withContainer({ resources: { limits: { cpu: '1', memory: '1Gi' } } }))
    const c = (o.spec as { containers: Array<{ resources: unknown }> }).containers[0]!
    assert.deepEqual(c.resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })
    assert.deepEqual(o.status, { phase: 'Pending', qosClass: 'Guaranteed' })
  })
  it('a request alone is Burstable, nothing at all BestEffort', () => {
    assert.equal((prepared(pods(), withContainer({ resources: { requests: { cpu: '100m' } } })).status as { qosClass: string }).qosClass, 'Burstable')
    assert.equal((prepared(pods(), pod({})).status as { qosClass: string }).qosClass, 'BestEffort')
  })
})
