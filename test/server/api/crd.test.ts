import assert from 'node:assert/strict'
import { apiGroupList, apiResourceList } from '../../../src/server/api/discovery.js'
import { customResourceStrategy, parseSimplePath } from '../../../src/server/api/kinds/crd.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'

// apiextensions.k8s.io/v1 requires a schema for every version (a structural one).
const OPEN_SCHEMA = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }

function crd(overrides: { scope?: string; name?: string; group?: string; plural?: string; kind?: string; shortNames?: string[]; versions?: unknown[]; annotations?: Record<string, string> } = {}): KubeObject {
  const group = overrides.group ?? 'stable.example.com'
  const plural = overrides.plural ?? 'widgets'
  return {
    metadata: { name: overrides.name ?? `${plural}.${group}`, ...(overrides.annotations ? { annotations: overrides.annotations } : {}) },
    spec: {
      group,
      scope: overrides.scope ?? 'Namespaced',
      names: { plural, kind: overrides.kind ?? 'Widget', shortNames: overrides.shortNames ?? ['wd'] },
      versions: overrides.versions ?? [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: OPEN_SCHEMA,
          additionalPrinterColumns: [
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
            { name: 'Started', type: 'date', jsonPath: '.status.started' },
          ],
        },
      ],
    },
  }
}

describe('api: CustomResourceDefinitions in the registry', function () {
  let dir: string
  let store: SqliteStore
  let registry: Registry

  let t: TestRegistry

  beforeEach(async () => {
    t = await openTestRegistry('api-crd-', ['default', 'team'])
    ;({ dir, store, registry } = t)
  })
  afterEach(async () => {
    await t.close()
  })


  const crds = () => registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!

  it('defaults names and writes the established status on create', async () => {
    const created = await crds().create(crd())
    const status = created.status as { conditions: Array<{ type: string; status: string; reason: string }>; acceptedNames: Record<string, unknown>; storedVersions: string[] }
    assert.deepEqual(
      status.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['NamesAccepted', 'True', 'NoConflicts'],
        ['Established', 'True', 'InitialNamesAccepted'],
      ],
    )
    assert.deepEqual(status.acceptedNames, { plural: 'widgets', kind: 'Widget', shortNames: ['wd'], singular: 'widget', listKind: 'WidgetList' })
    assert.deepEqual(status.storedVersions, ['v1'])
    const kv = await store.get('/customresourcedefinitions/widgets.stable.example.com')
    assert.ok(kv)
  })

  it('validates the essentials', async () => {
    const cases: Array<[KubeObject, RegExp]> = [
      [crd({ name: 'other.stable.example.com' }), /metadata\.name: Invalid value: "other\.stable\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/],
      [crd({ group: 'nodots', name: 'widgets.nodots' }), /spec\.group: Invalid value: "nodots": should be a domain with at least one dot/],
      [crd({ scope: 'Everywhere' }), /spec\.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"/],
      [crd({ versions: [{ name: 'v1', served: true, storage: false, schema: OPEN_SCHEMA }] }), /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/],
      [crd({ versions: [{ name: 'v1', served: true, storage: true }] }), /spec\.versions\[0\]\.schema\.openAPIV3Schema: Required value: schemas are required/],
      [crd({ versions: [] }), /status\.storedVersions: Invalid value: null: must have at least one stored version/],
      [crd({ plural: '', name: '.stable.example.com' }), /spec\.names\.plural: Required value/],
      // apiextensions validation.go: uniqueItems is refused in a CRD schema.
      [
        crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } } } } }] }),
        /spec\.validation\.openAPIV3Schema\.properties\[tags\]\.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic/,
      ],
    ]
    for (const [obj, message] of cases) {
      await assert.rejects(crds().create(obj), (err: unknown) => err instanceof ApiError && err.code === 422 && message.test(err.message))
    }
  })

  it('serves the custom resources of an established CRD, namespaced or cluster-scoped', async () => {
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'widgets'), undefined)
    await crds().create(crd())
    await crds().create(crd({ plural: 'gadgets', kind: 'Gadget', shortNames: ['gd'], scope: 'Cluster' }))
    const widgets = (await registry.resolve('stable.example.com', 'v1', 'widgets'))!
    const gadgets = (await registry.resolve('stable.example.com', 'v1', 'gadgets'))!
    assert.equal(widgets.strategy.namespaced, true)
    assert.equal(gadgets.strategy.namespaced, false)
    await widgets.create({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'a', namespace: 'team' }, spec: { size: 3 } })
    await gadgets.create({ apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'b' } })
    assert.ok(await store.get('/stable.example.com/widgets/team/a'))
    assert.ok(await store.get('/stable.example.com/gadgets/b'))
    await assert.rejects(widgets.create({ metadata: { name: 'c', namespace: 'nope' } }), (err: unknown) => err instanceof ApiError && err.code === 404)

    const kinds = await registry.kinds()
    assert.ok((apiGroupList(kinds).groups as Array<{ name: string }>).some((g) => g.name === 'stable.example.com'))
    const list = apiResourceList(kinds, 'stable.example.com', 'v1')!
    assert.deepEqual(
      (list.resources as Array<{ name: string; shortNames?: string[] }>).map((r) => [r.name, r.shortNames]),
      [
        ['gadgets', ['gd']],
        ['widgets', ['wd']],
      ],
    )

    // Deleting the namespace deletes its custom resources; deleting the CRD deletes the rest.
    await registry.lookup('', 'v1', 'namespaces')!.delete(undefined, 'team')
    await eventually(async () => !(await store.get('/namespaces/team')), 'the namespace to go')
    assert.ok(!(await store.get('/stable.example.com/widgets/team/a')))
    // The first DELETE marks the CRD (the cleanup finalizer, Terminating); the CRD finalizer
    // deletes its objects, then the CRD.
    const marked = await crds().delete(undefined, 'gadgets.stable.example.com')
    assert.deepEqual(marked.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io'])
    assert.ok(marked.metadata.deletionTimestamp)
    await eventually(async () => !(await store.get('/customresourcedefinitions/gadgets.stable.example.com')), 'the CRD to go')
    assert.ok(!(await store.get('/stable.example.com/gadgets/b')))
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'gadgets'), undefined)
  })

  it('keeps a deleted CRD Terminating while its objects go, refusing creates meanwhile', async () => {
    await crds().create(crd())
    const widgets = (await registry.resolve('stable.example.com', 'v1', 'widgets'))!
    await widgets.create({ metadata: { name: 'kept', namespace: 'team', finalizers: ['example.com/hold'] } })
    await widgets.create({ metadata: { name: 'plain', namespace: 'default' } })
    await crds().delete(undefined, 'widgets.stable.example.com')
    const conditionOf = async (type: string) => {
      const c = ((await crds().get(undefined, 'widgets.stable.example.com')).status as { conditions: Array<{ type: string; status: string; reason: string; message: string }> }).conditions
      return c.find((x) => x.type === type)
    }
    await eventually(async () => !(await store.get('/stable.example.com/widgets/default/plain')), 'the plain object to go')
    assert.deepEqual(await conditionOf('Terminating'), { ...(await conditionOf('Terminating')), status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' })
    // Still served (get, list, update), but no create.
    const terminating = (await registry.resolve('stable.example.com', 'v1', 'widgets'))!
    const held = await terminating.get('team', 'kept')
    assert.ok(held.metadata.deletionTimestamp)
    await assert.rejects(
      terminating.create({ metadata: { name: 'new', namespace: 'default' } }),
      (err: unknown) => err instanceof ApiError && err.code === 405 && err.message === 'create not allowed while custom resource definition is terminating',
    )
    // The object's own finalizer goes: the object, then the CRD.
    await terminating.update('team', 'kept', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }))
    await eventually(async () => !(await store.get('/customresourcedefinitions/widgets.stable.example.com')), 'the CRD to go')
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'widgets'), undefined)
  })

  it('accepts the names a deleted CRD freed for a CRD that wanted them', async () => {
    await crds().create(crd())
    const second = await crds().create(crd({ plural: 'gizmos', shortNames: ['gz'] }))
    assert.equal((second.status as { conditions: Array<{ type: string; status: string }> }).conditions.find((c) => c.type === 'Established')?.status, 'False')
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'gizmos'), undefined)
    await crds().delete(undefined, 'widgets.stable.example.com')
    await eventually(async () => (await registry.resolve('stable.example.com', 'v1', 'gizmos')) !== undefined, 'gizmos to be served')
  })

  it('never serves or deletes over a built-in kind of the same key layout', async () => {
    await store.create('/pods/default/p', Buffer.from(JSON.stringify({ metadata: { name: 'p', namespace: 'default' } })))
    await crds().create(crd({ group: 'x.k8s.io', plural: 'pods', annotations: { 'api-approved.kubernetes.io': 'unapproved, a test' } }))
    assert.equal(await registry.resolve('x.k8s.io', 'v1', 'pods'), undefined)
    await crds().delete(undefined, 'pods.x.k8s.io')
    await eventually(async () => !(await store.get('/customresourcedefinitions/pods.x.k8s.io')), 'the CRD to go')
    assert.ok(await store.get('/pods/default/p'))
  })

  it('prints the additional printer columns and AGE in the Table form', () => {
    const strategy = customResourceStrategy(crd(), 'v1')
    assert.deepEqual(
      strategy.table.definitions.map((d) => [d.name, d.type]),
      [
        ['Name', 'string'],
        ['Size', 'integer'],
        ['Started', 'date'],
        ['Age', 'string'],
      ],
    )
    const now = Date.parse('2024-01-01T01:00:00Z')
    const obj = { metadata: { name: 'a', creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { size: 2 }, status: { started: '2024-01-01T00:59:00Z' } }
    assert.deepEqual(strategy.table.cells(obj, now), ['a', 2, '60s', '60m'])
    assert.deepEqual(strategy.table.cells({ metadata: { name: 'b' } }, now), ['b', null, null, '<unknown>'])
    assert.deepEqual(parseSimplePath('.spec.items[0].name'), ['spec', 'items', '0', 'name'])
  })
})
