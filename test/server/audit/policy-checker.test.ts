/**
 * The policy's evaluation, the reference's audit/policy checker_test.go case for case: the
 * requests, rules and expected levels and omitted stages are its own.
 */
import assert from 'node:assert/strict'
import type { Level, Stage } from '../../../src/server/audit/event.js'
import type { AuditPolicyAttributes, Policy, PolicyRule } from '../../../src/server/audit/policy.js'
import { PolicyChecker } from '../../../src/server/audit/policy-checker.js'
import type { RequestInfo } from '../../../src/server/http/types.js'

const tim = { name: 'tim@k8s.io', groups: ['humans', 'developers'] }
const request = (info: Partial<RequestInfo>): RequestInfo => ({ isResourceRequest: true, path: '', verb: 'get', longRunning: false, ...info })

const attrs: Record<string, AuditPolicyAttributes> = {
  namespaced: { user: tim, request: request({ namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', name: 'busybox', path: '/api/v1/namespaces/default/pods/busybox' }) },
  cluster: {
    user: tim,
    request: request({ apiGroup: 'rbac.authorization.k8s.io', apiVersion: 'v1beta1', resource: 'clusterroles', name: 'edit', path: '/apis/rbac.authorization.k8s.io/v1beta1/clusterroles/edit' }),
  },
  nonResource: { user: tim, request: request({ isResourceRequest: false, path: '/logs/kubelet.log' }) },
  subresource: {
    user: tim,
    request: request({ namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: 'log', name: 'busybox', path: '/api/v1/namespaces/default/pods/busybox' }),
  },
  Unauthorized: { request: request({ namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'pods', name: 'busybox', path: '/api/v1/namespaces/default/pods/busybox' }) },
  ClusterRoleUpdate: {
    user: tim,
    request: request({
      verb: 'update',
      apiGroup: 'rbac.authorization.k8s.io',
      apiVersion: 'v1beta1',
      resource: 'clusterroles',
      subresource: 'status',
      name: 'somerole',
      path: '/apis/rbac.authorization.k8s.io/v1beta1/clusterroles/somerole',
    }),
  },
}

const rules: Record<string, PolicyRule> = {
  default: { level: 'Metadata' },
  create: { level: 'Request', verbs: ['create'] },
  tims: { level: 'Metadata', users: ['tim@k8s.io'] },
  humans: { level: 'Metadata', userGroups: ['humans'] },
  serviceAccounts: { level: 'Request', userGroups: ['system:serviceaccounts'] },
  getPods: { level: 'RequestResponse', verbs: ['get'], resources: [{ resources: ['pods'] }] },
  getPodLogs: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/log'] }] },
  getPodWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*'] }] },
  getPodResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*/log'] }] },
  getPodSubResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/*'] }] },
  getClusterRoles: { level: 'RequestResponse', verbs: ['get'], resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'] }], namespaces: [''] },
  getGroupWildCardMatchingWithSubresourceWildcardMatching: { level: 'RequestResponse', verbs: ['update'], resources: [{ group: '*', resources: ['*/status'] }] },
  getLogs: { level: 'RequestResponse', verbs: ['get'], nonResourceURLs: ['/logs*'] },
  getMetrics: { level: 'Request', verbs: ['get'], nonResourceURLs: ['/metrics'] },
  clusterRoleEdit: { level: 'Request', resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'], resourceNames: ['edit'] }] },
  'omit RequestReceived': { level: 'Request', omitStages: ['RequestReceived'] },
  'only audit panic': { level: 'Request', omitStages: ['RequestReceived', 'ResponseStarted', 'ResponseComplete'] },
}

function check(req: string, expLevel: Level, policyStages: Stage[], expOmitStages: Stage[], ...ruleNames: string[]): void {
  const policy: Policy = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitStages: policyStages, rules: ruleNames.map((name) => rules[name]!) }
  const config = new PolicyChecker(policy).evaluatePolicyRule(attrs[req]!)
  const what = `request:${req} rules:${ruleNames.join(',')}`
  assert.equal(config.level, expLevel, what)
  assert.deepEqual(new Set(config.omitStages), new Set(expOmitStages), what)
}

function testAuditLevel(stages: Stage[]): void {
  const t = (req: string, level: Level, ...names: string[]) => check(req, level, stages, stages, ...names)
  t('namespaced', 'Metadata', 'default')
  t('namespaced', 'None', 'create')
  t('namespaced', 'Metadata', 'tims')
  t('namespaced', 'Metadata', 'humans')
  t('namespaced', 'None', 'serviceAccounts')
  t('namespaced', 'RequestResponse', 'getPods')
  t('namespaced', 'None', 'getClusterRoles')
  t('namespaced', 'None', 'getLogs')
  t('namespaced', 'None', 'getMetrics')
  t('namespaced', 'Metadata', 'getMetrics', 'serviceAccounts', 'default')
  t('namespaced', 'RequestResponse', 'getMetrics', 'getPods', 'default')
  t('namespaced', 'RequestResponse', 'getPodLogs', 'getPods')

  t('cluster', 'Metadata', 'default')
  t('cluster', 'None', 'create')
  t('cluster', 'Metadata', 'tims')
  t('cluster', 'Metadata', 'humans')
  t('cluster', 'None', 'serviceAccounts')
  t('cluster', 'None', 'getPods')
  t('cluster', 'RequestResponse', 'getClusterRoles')
  t('cluster', 'Request', 'clusterRoleEdit', 'getClusterRoles')
  t('cluster', 'None', 'getLogs')
  t('cluster', 'None', 'getMetrics')
  t('cluster', 'Metadata', 'getMetrics', 'serviceAccounts', 'default')
  t('cluster', 'RequestResponse', 'getMetrics', 'getClusterRoles', 'default')
  t('cluster', 'None', 'getPodLogs', 'getPods')

  t('nonResource', 'Metadata', 'default')
  t('nonResource', 'None', 'create')
  t('nonResource', 'Metadata', 'tims')
  t('nonResource', 'Metadata', 'humans')
  t('nonResource', 'None', 'serviceAccounts')
  t('nonResource', 'None', 'getPods')
  t('nonResource', 'None', 'getClusterRoles')
  t('nonResource', 'RequestResponse', 'getLogs')
  t('nonResource', 'None', 'getMetrics')
  t('nonResource', 'Metadata', 'getMetrics', 'serviceAccounts', 'default')
  t('nonResource', 'RequestResponse', 'getLogs', 'getClusterRoles', 'default')
  t('nonResource', 'None', 'getPodLogs', 'getPods')

  t('subresource', 'Request', 'getPodLogs', 'getPods')
  t('subresource', 'Request', 'getPodWildcardMatching')
  t('subresource', 'Request', 'getPodResourceWildcardMatching')
  t('subresource', 'Request', 'getPodSubResourceWildcardMatching')

  t('Unauthorized', 'None', 'tims')
  t('Unauthorized', 'Metadata', 'tims', 'default')
  t('Unauthorized', 'None', 'humans')
  t('Unauthorized', 'Metadata', 'humans', 'default')
  t('ClusterRoleUpdate', 'RequestResponse', 'getGroupWildCardMatchingWithSubresourceWildcardMatching')
}

describe('audit policy evaluation (checker_test.go)', () => {
  it('TestChecker', () => {
    testAuditLevel([])
    check('namespaced', 'Request', [], ['RequestReceived'], 'omit RequestReceived', 'getPods', 'default')
    check('namespaced', 'Request', [], ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
    check('cluster', 'Request', [], ['RequestReceived'], 'omit RequestReceived', 'getPods', 'default')
    check('cluster', 'Request', [], ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
    check('nonResource', 'Request', [], ['RequestReceived'], 'omit RequestReceived', 'getPods', 'default')
    check('nonResource', 'Request', [], ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
  })

  it('TestCheckerPolicyOmitStages', () => {
    const policyStages: Stage[] = ['RequestReceived', 'ResponseStarted']
    testAuditLevel(policyStages)
    check('namespaced', 'Request', policyStages, ['RequestReceived', 'ResponseStarted'], 'omit RequestReceived', 'getPods', 'default')
    check('namespaced', 'Request', policyStages, ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
    check('cluster', 'Request', policyStages, ['RequestReceived', 'ResponseStarted'], 'omit RequestReceived', 'getPods', 'default')
    check('cluster', 'Request', policyStages, ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
    check('nonResource', 'Metadata', policyStages, ['RequestReceived', 'ResponseStarted'], 'default', 'omit RequestReceived', 'getPods')
    check('nonResource', 'Request', policyStages, ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'only audit panic', 'getPods', 'default')
  })

  describe('TestOmitManagedFields', () => {
    const attributes: AuditPolicyAttributes = { request: request({ isResourceRequest: false, verb: 'get' }) }
    const matching: PolicyRule = { level: 'RequestResponse', verbs: ['get'] }
    const cases: { name: string; policy: boolean; rule?: boolean; want: boolean }[] = [
      { name: 'global policy default is false, rule does not override', policy: false, want: false },
      { name: 'global policy default is true, rule does not override', policy: true, want: true },
      { name: 'global policy default is true, rule overrides to false', policy: true, rule: false, want: false },
      { name: 'global policy default is false, rule overrides to true', policy: false, rule: true, want: true },
    ]
    for (const tc of cases) {
      it(tc.name, () => {
        const rule = tc.rule === undefined ? matching : { ...matching, omitManagedFields: tc.rule }
        const policy: Policy = { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitManagedFields: tc.policy, rules: [rule] }
        assert.equal(new PolicyChecker(policy).evaluatePolicyRule(attributes).omitManagedFields, tc.want)
      })
    }
  })
})
