import assert from 'node:assert/strict'
import { join } from 'node:path'
import { RESOURCES } from '../../../src/server/api/generated/resources.js'
import { KINDS } from '../../../src/server/api/kinds/index.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { parseFieldSelector } from '../../../src/server/http/selectors.js'
import { SqliteStore } from '../../../src/server/store/sqlite-store.js'
import { type TestRegistry, eventually, openTestRegistry } from './support.js'

describe('api: built-in kinds as data', function () {
  let dir: string
  let store: SqliteStore
  let registry: Registry

  let t: TestRegistry

  beforeEach(async () => {
    t = await openTestRegistry('api-builtin-')
    ;({ dir, store, registry } = t)
  })
  afterEach(async () => {
    await t.close()
  })


  it('serves every generated kind, with unique resources and the reference short names', () => {
    // 59 GA resources served by default; 26 beta and alpha ones for --runtime-config.
    assert.equal(RESOURCES.filter((r) => /^v\d+$/.test(r.version)).length, 59)
    assert.equal(RESOURCES.length, 85)
    const ids = KINDS.map((k) => `${k.group}/${k.version}/${k.resource}`)
    assert.equal(new Set(ids).size, ids.length)
    const short = Object.fromEntries(KINDS.map((k) => [k.resource, k.shortNames.join(',')]))
    assert.deepEqual(
      [short.pods, short.services, short.endpoints, short.secrets, short.serviceaccounts, short.replicationcontrollers, short.events, short.nodes],
      ['po', 'svc', 'ep', '', 'sa', 'rc', 'ev', 'no'],
    )
    assert.deepEqual([short.deployments, short.replicasets, short.statefulsets, short.daemonsets, short.cronjobs, short.ingresses, short.networkpolicies, short.poddisruptionbudgets, short.priorityclasses], [
      'deploy',
      'rs',
      'sts',
      'ds',
      'cj',
      'ing',
      'netpol',
      'pdb',
      'pc',
    ])
    const scope = Object.fromEntries(KINDS.map((k) => [k.resource, k.namespaced]))
    assert.equal(scope.nodes, false)
    assert.equal(scope.persistentvolumes, false)
    assert.equal(scope.clusterroles, false)
    assert.equal(scope.priorityclasses, false)
    assert.equal(scope.leases, true)
    assert.equal(scope.persistentvolumeclaims, true)
  })

  it('keys: /<resource>/<namespace>/<name> and /<resource>/<name>', () => {
    assert.equal(registry.lookup('apps', 'v1', 'deployments')!.key('default', 'web'), '/deployments/default/web')
    assert.equal(registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!.key(undefined, 'cluster-admin'), '/clusterroles/cluster-admin')
    assert.equal(registry.lookup('scheduling.k8s.io', 'v1', 'priorityclasses')!.prefix(), '/priorityclasses/')
  })

  it('reads bootstrap cluster roles written under /clusterroles/<name>; allows RBAC names with colons', async () => {
    await store.create('/clusterroles/cluster-admin', Buffer.from(JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cluster-admin' }, rules: [] })))
    const roles = registry.lookup('rbac.authorization.k8s.io', 'v1', 'clusterroles')!
    assert.deepEqual((await roles.list()).items.map((o) => o.metadata.name), ['cluster-admin'])
    const created = await roles.create({ metadata: { name: 'system:test' }, rules: [] })
    assert.equal(created.kind, 'ClusterRole')
    assert.equal(created.apiVersion, 'rbac.authorization.k8s.io/v1')
  })

  it('pods: Pending on create, defaults, status kept on update, field selectors', async () => {
    const pods = registry.lookup('', 'v1', 'pods')!
    const pod = await pods.create({ metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx:1.27' }] }, status: { phase: 'Running' } })
    assert.equal((pod.status as { phase: string }).phase, 'Pending')
    const spec = pod.spec as { restartPolicy: string; containers: Array<{ imagePullPolicy: string }> }
    assert.equal(spec.restartPolicy, 'Always')
    assert.equal(spec.containers[0]!.imagePullPolicy, 'IfNotPresent')
    const updated = await pods.update('default', 'p', (cur) => ({ ...cur, status: { phase: 'Running' } }))
    assert.equal((updated.status as { phase: string }).phase, 'Pending')
    const sel = (text: string) => parseFieldSelector(text, pods.strategy.selectableFields)
    assert.equal((await pods.list({ namespace: 'default', fields: sel('spec.nodeName=n1,status.phase=Pending') })).items.length, 1)
    assert.equal((await pods.list({ namespace: 'default', fields: sel('spec.nodeName=n2') })).items.length, 0)
    await assert.rejects(pods.create({ metadata: { name: 'q', namespace: 'default' }, spec: {} }), (e: unknown) => e instanceof ApiError && e.status.code === 422)
    const row = pods.strategy.table.cells(pod, Date.now())
    assert.deepEqual(row.slice(0, 4), ['p', '0/1', 'Pending', 0])
  })

  it('services: cluster IPs allocated from 10.0.0.0/24, unique, requested ones checked', async () => {
    const services = registry.lookup('', 'v1', 'services')!
    const mk = (name: string, spec: Record<string, unknown> = {}) => services.create({ metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...spec } })
    const a = await mk('a')
    const b = await mk('b')
    const ipA = (a.spec as { clusterIP: string }).clusterIP
    const ipB = (b.spec as { clusterIP: string }).clusterIP
    assert.match(ipA, /^10\.0\.0\.\d+$/)
    assert.notEqual(ipA, ipB)
    assert.deepEqual((a.spec as { clusterIPs: string[] }).clusterIPs, [ipA])
    assert.equal((a.spec as { type: string }).type, 'ClusterIP')
    await assert.rejects(mk('c', { clusterIP: ipA }), /already allocated/)
    await assert.rejects(mk('d', { clusterIP: '192.168.0.1' }), /not in the valid range/)
    const headless = await mk('e', { clusterIP: 'None' })
    assert.equal((headless.spec as { clusterIP: string }).clusterIP, 'None')
    await assert.rejects(mk('Bad'), /DNS-1035/)
    assert.deepEqual(services.strategy.table.cells(a, Date.now()).slice(0, 5), ['a', 'ClusterIP', ipA, '<none>', '80/TCP'])
  })

  it('pods: generation 1 on create, bumped by a spec change only (the reference since 1.33)', async () => {
    const pods = registry.lookup('', 'v1', 'pods')!
    const p = await pods.create({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] }, status: { phase: 'Running' } })
    assert.equal(p.metadata.generation, 1)
    // PrepareForCreate resets the status: Pending with the computed QoS class.
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' })
    const labelled = await pods.update('default', 'p', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } } }))
    assert.equal(labelled.metadata.generation, 1)
    const image = await pods.update('default', 'p', (cur) => {
      ;(cur.spec as { containers: Array<{ image: string }> }).containers[0]!.image = 'nginx:1.28'
      return cur
    })
    assert.equal(image.metadata.generation, 2)
    const status = await pods.update('default', 'p', (cur) => ({ ...cur, status: { ...(cur.status as object), phase: 'Running' } }), { subresource: 'status' })
    assert.equal(status.metadata.generation, 2)
    const debug = await pods.update('default', 'p', (cur) => ({ ...cur, spec: { ...(cur.spec as object), ephemeralContainers: [{ name: 'debug', image: 'busybox:1.36' }] } }), { subresource: 'ephemeralcontainers' })
    assert.equal(debug.metadata.generation, 3)
  })

  it('deployments: defaults, selector must match the template, generation', async () => {
    const deployments = registry.lookup('apps', 'v1', 'deployments')!
    const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } }
    const d = await deployments.create({ metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'x' } }, template } })
    assert.equal((d.spec as { replicas: number }).replicas, 1)
    assert.equal(d.metadata.generation, 1)
    assert.deepEqual(deployments.strategy.table.cells(d, Date.now()).slice(0, 4), ['d', '0/1', 0, 0])
    await assert.rejects(
      deployments.create({ metadata: { name: 'e', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'y' } }, template } }),
      /selector` does not match template `labels`/,
    )
    const u = await deployments.update('default', 'd', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 3 } }))
    assert.equal(u.metadata.generation, 2)
    // A container added by an update (replace, patch, apply) is defaulted as on create.
    const added = await deployments.update('default', 'd', (cur) => {
      const spec = cur.spec as { template: { spec: { containers: object[] } } }
      spec.template.spec.containers.push({ name: 'side', image: 'busybox:1.36' })
      return cur
    })
    const side = (added.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[1]!
    assert.deepEqual(side, {
      name: 'side',
      image: 'busybox:1.36',
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
    })
  })

  it('deleting a namespace deletes its built-in objects too', async () => {
    await store.create('/namespaces/team', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } })))
    const secrets = registry.lookup('', 'v1', 'secrets')!
    const s = await secrets.create({ metadata: { name: 's', namespace: 'team' }, stringData: { a: 'b' } })
    assert.deepEqual(s.data, { a: 'Yg==' })
    assert.equal(s.type, 'Opaque')
    await registry.lookup('', 'v1', 'namespaces')!.delete(undefined, 'team')
    await eventually(async () => !(await store.get('/namespaces/team')), 'the namespace to go')
    assert.equal((await secrets.list({ namespace: 'team' })).items.length, 0)
  })
})
