/**
 * The API priority and fairness configuration a new cluster starts with: the reference's
 * mandatory objects (the `exempt` and `catch-all` FlowSchemas and priority levels) and its
 * suggested ones (staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go),
 * each annotated for automatic update as the reference's configuration controller writes them.
 */
import type { BootstrapObject } from './object.js'

const AUTOUPDATE = { 'apf.kubernetes.io/autoupdate-spec': 'true' }
const GROUP = 'flowcontrol.apiserver.k8s.io'

type Subject = Record<string, unknown>
const group = (name: string): Subject => ({ kind: 'Group', group: { name } })
const user = (name: string): Subject => ({ kind: 'User', user: { name } })
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } })

const ALL_RESOURCES = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }
const ALL_NON_RESOURCES = { verbs: ['*'], nonResourceURLs: ['*'] }
const everything = (subjects: Subject[]) => [{ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] }]

function level(name: string, spec: Record<string, unknown>): BootstrapObject {
  return {
    key: `/prioritylevelconfigurations/${name}`,
    object: { apiVersion: `${GROUP}/v1`, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: AUTOUPDATE }, spec, status: {} },
  }
}

function limited(shares: number, lendablePercent: number, queues: number, handSize: number): Record<string, unknown> {
  return { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } } }
}

function schema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: string | undefined, rules: unknown[]): BootstrapObject {
  return {
    key: `/flowschemas/${name}`,
    object: {
      apiVersion: `${GROUP}/v1`,
      kind: 'FlowSchema',
      metadata: { name, annotations: AUTOUPDATE },
      spec: { priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence, ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules },
      status: {
        conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${priorityLevel}" and it exists` }],
      },
    },
  }
}

const leases = (namespaces: string[]) => ({ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces })

export function flowControlConfiguration(): BootstrapObject[] {
  const authenticatedAndNot = [group('system:unauthenticated'), group('system:authenticated')]
  return [
    // Mandatory.
    level('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
    level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
    schema('exempt', 'exempt', 1, undefined, everything([group('system:masters')])),
    schema('catch-all', 'catch-all', 10000, 'ByUser', everything(authenticatedAndNot)),
    // Suggested.
    level('system', limited(30, 33, 64, 6)),
    level('node-high', limited(40, 25, 64, 6)),
    level('leader-election', limited(10, 0, 16, 4)),
    level('workload-high', limited(40, 50, 128, 6)),
    level('workload-low', limited(100, 90, 128, 6)),
    level('global-default', limited(20, 50, 128, 6)),
    schema('probes', 'exempt', 2, undefined, [{ subjects: authenticatedAndNot, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
    schema('system-leader-election', 'leader-election', 100, 'ByUser', [
      { subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')], resourceRules: [{ ...leases(['kube-system']) }, { verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['kube-system'] }] },
    ]),
    schema('endpoint-controller', 'workload-high', 150, 'ByUser', [
      {
        subjects: [user('system:kube-controller-manager'), serviceAccount('kube-system', 'endpoint-controller'), serviceAccount('kube-system', 'endpointslicemirroring-controller')],
        resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }],
      },
    ]),
    schema('workload-leader-election', 'leader-election', 200, 'ByUser', [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }], resourceRules: [leases(['kube-system'])] }]),
    schema('system-node-high', 'node-high', 400, 'ByUser', [
      {
        subjects: [group('system:nodes')],
        resourceRules: [
          { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true },
          { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
        ],
      },
    ]),
    schema('system-nodes', 'system', 500, 'ByUser', everything([group('system:nodes')])),
    schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything([user('system:kube-controller-manager')])),
    schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything([user('system:kube-scheduler')])),
    schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }])),
    schema('service-accounts', 'workload-low', 9000, 'ByUser', everything([group('system:serviceaccounts')])),
    schema('global-default', 'global-default', 9900, 'ByUser', everything(authenticatedAndNot)),
  ]
}
