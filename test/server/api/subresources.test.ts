import assert from 'node:assert/strict'
import { apiResourceList } from '../../../src/server/api/discovery.js'
import { labelSelectorString, toScale } from '../../../src/server/api/handlers/scale.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { type TestRegistry, openTestRegistry } from './support.js'

describe('api: status and scale subresources, deletecollection in discovery', function () {
  let dir: string
  let store: SqliteStore
  let registry: Registry

  let t: TestRegistry

  beforeEach(async () => {
    t = await openTestRegistry('api-sub-')
    ;({ dir, store, registry } = t)
  })
  afterEach(async () => {
    await t.close()
  })


  const deployment = {
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
      template: { metadata: { labels: { app: 'web', tier: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  }

  it('a status write changes only .status: spec, metadata and generation stay', async () => {
    const deployments = registry.lookup('apps', 'v1', 'deployments')!
    const created = await deployments.create(structuredClone(deployment))
    const updated = await deployments.update(
      'default',
      'web',
      (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { changed: 'yes' } }, spec: { ...(cur.spec as object), replicas: 9 }, status: { replicas: 5 } }),
      { subresource: 'status' },
    )
    assert.deepEqual(updated.status, { replicas: 5 })
    assert.deepEqual(updated.spec, created.spec)
    assert.deepEqual(updated.metadata.labels, { app: 'web' })
    assert.equal(updated.metadata.generation, 1)
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion)
    // A stale resourceVersion is still a precondition.
    await assert.rejects(
      deployments.update('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: created.metadata.resourceVersion! }, status: {} }), { subresource: 'status' }),
      (e: unknown) => e instanceof ApiError && e.status.code === 409,
    )
    // The main resource still ignores status.
    const main = await deployments.update('default', 'web', (cur) => ({ ...cur, status: { replicas: 1 } }))
    assert.deepEqual(main.status, { replicas: 5 })
  })

  it('the namespace status subresource writes the status prepareForUpdate keeps', async () => {
    const namespaces = registry.lookup('', 'v1', 'namespaces')!
    await namespaces.create({ metadata: { name: 'team' } })
    const updated = await namespaces.update(undefined, 'team', (cur) => ({ ...cur, status: { phase: 'Active', conditions: [] } }), { subresource: 'status' })
    assert.deepEqual(updated.status, { phase: 'Active', conditions: [] })
    // ValidateNamespaceStatusUpdate: Terminating only once deletionTimestamp is set.
    await assert.rejects(
      namespaces.update(undefined, 'team', (cur) => ({ ...cur, status: { phase: 'Terminating' } }), { subresource: 'status' }),
      (e: unknown) => e instanceof ApiError && e.status.message === `Namespace "team" is invalid: status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
    )
  })

  it('Scale: spec.replicas (default 1), status.replicas, the selector as a string', async () => {
    const deployments = registry.lookup('apps', 'v1', 'deployments')!
    const created = await deployments.create(structuredClone(deployment))
    const scale = toScale(created)
    assert.equal(scale.kind, 'Scale')
    assert.equal(scale.apiVersion, 'autoscaling/v1')
    assert.deepEqual(scale.metadata, { name: 'web', namespace: 'default', uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, creationTimestamp: created.metadata.creationTimestamp })
    assert.deepEqual(scale.spec, { replicas: 1 })
    assert.deepEqual(scale.status, { replicas: 0, selector: 'app=web,tier in (a,b)' })
    const rc = toScale({ kind: 'ReplicationController', metadata: { name: 'r' }, spec: { replicas: 2, selector: { b: '2', a: '1' } }, status: { replicas: 2 } })
    assert.deepEqual(rc.status, { replicas: 2, selector: 'a=1,b=2' })
    assert.equal(labelSelectorString({ matchExpressions: [{ key: 'z', operator: 'DoesNotExist' }, { key: 'y', operator: 'Exists' }, { key: 'x', operator: 'NotIn', values: ['1'] }] }), 'x notin (1),y,!z')
    assert.equal(labelSelectorString(undefined), '')
  })

  it('discovery: <plural>/status and <plural>/scale after each kind, deletecollection in verbs', () => {
    const core = apiResourceList(KINDS, '', 'v1')!.resources as Array<Record<string, unknown>>
    const names = core.map((r) => r.name as string)
    for (const n of ['pods/status', 'services/status', 'nodes/status', 'namespaces/status', 'persistentvolumes/status', 'persistentvolumeclaims/status', 'resourcequotas/status', 'replicationcontrollers/scale', 'replicationcontrollers/status']) {
      assert.ok(names.includes(n), n)
    }
    assert.ok(!names.includes('configmaps/status'))
    // The pod's subresources follow it, sorted, as the reference lists them.
    assert.deepEqual(names.slice(names.indexOf('pods'), names.indexOf('pods') + 11), [
      'pods',
      'pods/attach',
      'pods/binding',
      'pods/ephemeralcontainers',
      'pods/eviction',
      'pods/exec',
      'pods/log',
      'pods/portforward',
      'pods/proxy',
      'pods/resize',
      'pods/status',
    ])
    // The connect subresources as kube-apiserver lists them: their options kind, their methods as verbs.
    assert.deepEqual(core.find((r) => r.name === 'pods/exec'), { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] })
    assert.deepEqual(core.find((r) => r.name === 'pods/log'), { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] })
    assert.deepEqual(core.find((r) => r.name === 'nodes/proxy'), { name: 'nodes/proxy', singularName: '', namespaced: false, kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] })
    assert.deepEqual(core.find((r) => r.name === 'pods/eviction'), { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] })
    assert.deepEqual(core.find((r) => r.name === 'pods/binding'), { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] })
    assert.deepEqual(core.find((r) => r.name === 'replicationcontrollers/scale'), { name: 'replicationcontrollers/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] })
    assert.deepEqual(core.find((r) => r.name === 'nodes/status'), { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node', verbs: ['get', 'patch', 'update'] })
    assert.ok((core.find((r) => r.name === 'configmaps')!.verbs as string[]).includes('deletecollection'))
    assert.ok(!(core.find((r) => r.name === 'namespaces')!.verbs as string[]).includes('deletecollection'))
    for (const [group, plural] of [['batch', 'jobs'], ['batch', 'cronjobs'], ['networking.k8s.io', 'ingresses'], ['policy', 'poddisruptionbudgets'], ['apps', 'daemonsets']] as const) {
      const names = (apiResourceList(KINDS, group, 'v1')!.resources as Array<{ name: string }>).map((r) => r.name)
      assert.ok(names.includes(`${plural}/status`), plural)
      assert.ok(!names.includes(`${plural}/scale`), plural)
    }
  })
})
