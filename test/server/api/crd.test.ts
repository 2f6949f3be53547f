import assert from 'node:assert/strict'
import { apiGroupList, apiResourceList } from '../../../src/server/api/discovery.js'
import { customResourceStrategy, parseSimplePath } from '../../../src/server/api/kinds/crd.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'

function crd(overrides: { scope?: string; name?: string; group?: string; plural?: string; versions?: unknown[] } = {}): KubeObject {
  const group = overrides.group ?? 'stable.example.com'
  const plural = overrides.plural ?? 'widgets'
  return {
    metadata: { name: overrides.name ?? `${plural}.${group}` },
    spec: {
      group,
      scope: overrides.scope ?? 'Namespaced',
      names: { plural, kind: 'Widget', shortNames: ['wd'] },
      versions: overrides.versions ?? [
        {
          name: 'v1',
          served: true,
          storage: true,
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
      [crd({ versions: [{ name: 'v1', served: true, storage: false }] }), /spec\.versions: Invalid value: .*must have exactly one version marked as storage version/],
      [crd({ versions: [{ name: 'v1', served: false, storage: true }] }), /must have at least one version marked as served/],
      [crd({ versions: [] }), /spec\.versions: Required value/],
      [crd({ plural: '', name: '.stable.example.com' }), /spec\.names\.plural: Required value/],
      // apiextensions validation.go: uniqueItems is refused in a CRD schema.
      [
        crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } } } } }] }),
        /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[tags\]\.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic/,
      ],
    ]
    for (const [obj, message] of cases) {
      await assert.rejects(crds().create(obj), (err: unknown) => err instanceof ApiError && err.code === 422 && message.test(err.message))
    }
  })

  it('serves the custom resources of an established CRD, namespaced or cluster-scoped', async () => {
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'widgets'), undefined)
    await crds().create(crd())
    await crds().create(crd({ plural: 'gadgets', scope: 'Cluster' }))
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
        ['gadgets', ['wd']],
        ['widgets', ['wd']],
      ],
    )

    // Deleting the namespace deletes its custom resources; deleting the CRD deletes the rest.
    await registry.lookup('', 'v1', 'namespaces')!.delete(undefined, 'team')
    await eventually(async () => !(await store.get('/namespaces/team')), 'the namespace to go')
    assert.ok(!(await store.get('/stable.example.com/widgets/team/a')))
    await crds().delete(undefined, 'gadgets.stable.example.com')
    assert.ok(!(await store.get('/stable.example.com/gadgets/b')))
    assert.equal(await registry.resolve('stable.example.com', 'v1', 'gadgets'), undefined)
  })

  it('never serves or deletes over a built-in kind of the same key layout', async () => {
    await store.create('/pods/default/p', Buffer.from(JSON.stringify({ metadata: { name: 'p', namespace: 'default' } })))
    await crds().create(crd({ group: 'x.k8s.io', plural: 'pods' }))
    assert.equal(await registry.resolve('x.k8s.io', 'v1', 'pods'), undefined)
    await crds().delete(undefined, 'pods.x.k8s.io')
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
