import assert from 'node:assert/strict'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { reconciled } from '../../../src/server/bootstrap/rbac-reconcile.js'
import { bootstrapRbac } from '../../../src/server/bootstrap/rbac.js'

const expected = (name: string) => bootstrapRbac().find((b) => (b.object as KubeObject).metadata.name === name && (b.object as KubeObject).kind === 'ClusterRole')!.object as KubeObject

describe('default RBAC reconciliation', () => {
  it('gives a default role back the rules it lost, keeping the added ones', () => {
    const existing: KubeObject = { kind: 'ClusterRole', metadata: { name: 'system:public-info-viewer' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/extra'] }] }
    const out = reconciled(existing, expected('system:public-info-viewer'))
    assert.deepEqual(out.rules, [
      { verbs: ['get'], nonResourceURLs: ['/extra'] },
      ...['/healthz', '/livez', '/readyz', '/version', '/version/'].map((u) => ({ nonResourceURLs: [u], verbs: ['get'] })),
    ])
    assert.equal(out.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true')
  })
  it('leaves a role marked autoupdate "false" alone', () => {
    const existing: KubeObject = { kind: 'ClusterRole', metadata: { name: 'view', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }
    assert.equal(reconciled(existing, expected('view')), existing)
  })
  it('restores aggregation selectors and binding subjects', () => {
    const existing: KubeObject = { kind: 'ClusterRole', metadata: { name: 'edit' }, rules: [] }
    assert.deepEqual(reconciled(existing, expected('edit')).aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] })
    const binding = bootstrapRbac().find((b) => b.key === '/clusterrolebindings/system:public-info-viewer')!.object as KubeObject
    const stripped: KubeObject = { ...structuredClone(binding), subjects: [{ kind: 'Group', name: 'system:authenticated' }] }
    assert.deepEqual(
      (reconciled(stripped, binding).subjects as Array<{ name: string }>).map((s) => s.name),
      ['system:authenticated', 'system:unauthenticated'],
    )
  })
})
