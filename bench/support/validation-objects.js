// The full Pod and Deployment that bench/validation.bench.js creates (and
// bench/support/validation-alloc.js validates in a loop), so both measure the same objects.
/** A pod spec with what real manifests carry: several containers, ports, env, probes, resources, volumes. */
export function podSpec() {
  const container = (name, port) => ({
    name,
    image: `registry.example.com/team/${name}:1.2.3`,
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }, { name: 'metrics', containerPort: port + 1000 }],
    env: [{ name: 'MODE', value: 'production' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port }, periodSeconds: 5 },
    livenessProbe: { tcpSocket: { port }, initialDelaySeconds: 10 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'cache', mountPath: '/cache' }],
    securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  })
  return {
    containers: [container('web', 8080), container('sidecar', 9090)],
    initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'] }],
    volumes: [{ name: 'config', configMap: { name: 'app-config' } }, { name: 'cache', emptyDir: { sizeLimit: '1Gi' } }],
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }] } },
    serviceAccountName: 'default',
  }
}

export const pod = (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web', tier: 'frontend' }, annotations: { 'example.com/owner': 'team-a' } }, spec: podSpec() })
export const deployment = (name) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: 'web' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web', tier: 'frontend' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    minReadySeconds: 5,
    revisionHistoryLimit: 5,
    template: { metadata: { labels: { app: 'web', tier: 'frontend' } }, spec: podSpec() },
  },
})

/**
 * An object as the server holds it when it validates a create: decoded from JSON text (literals
 * get other hidden classes), with the namespace, uid, timestamp and managedFields entry the
 * create path adds before validation.
 */
export function preparedForValidation(make, name) {
  const o = JSON.parse(JSON.stringify(make(name)))
  o.metadata.namespace = 'default'
  o.metadata.uid = '5f1c3a52-0b0e-4d5b-9d7b-1b2c3d4e5f60'
  o.metadata.creationTimestamp = '2026-11-27T00:00:00Z'
  // What the server's object carries when it is validated: the create's managedFields entry.
  o.metadata.managedFields = [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: o.apiVersion, time: '2026-11-27T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } }]
  return o
}
