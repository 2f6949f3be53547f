/**
 * Valid objects of the core kinds whose tables list only invalid ones: each is accepted as the
 * reference accepts it (no 422).
 */
import { strategyOf, validCreates } from './support.js'

describe('validation/core: valid objects accepted', () => {
  describe('Endpoints', () => {
    validCreates(() => strategyOf('', 'v1', 'endpoints'), [
      ['a subset with an address and a named port', { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.0.0.1', nodeName: 'node-1' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] }],
      ['no subsets', { metadata: { name: 'empty' } }],
    ])
  })
  describe('LimitRange', () => {
    validCreates(() => strategyOf('', 'v1', 'limitranges'), [
      ['container defaults within min and max', { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '250m' }, min: { cpu: '100m' }, max: { cpu: '1' } }] } }],
    ])
  })
  describe('Node', () => {
    validCreates(() => strategyOf('', 'v1', 'nodes'), [
      ['a node with a pod CIDR and a taint', { metadata: { name: 'node-1' }, spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } }],
    ])
  })
  describe('PodTemplate', () => {
    validCreates(() => strategyOf('', 'v1', 'podtemplates'), [['a template', { metadata: { name: 'tpl' }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } }]])
  })
  describe('ResourceQuota', () => {
    validCreates(() => strategyOf('', 'v1', 'resourcequotas'), [['hard limits', { metadata: { name: 'quota' }, spec: { hard: { pods: '10', 'requests.cpu': '4', 'count/deployments.apps': '5' } } }]])
  })
  describe('ServiceAccount', () => {
    validCreates(() => strategyOf('', 'v1', 'serviceaccounts'), [['a service account with secrets', { metadata: { name: 'builder' }, secrets: [{ name: 'builder-token' }], automountServiceAccountToken: false }]])
  })
})
