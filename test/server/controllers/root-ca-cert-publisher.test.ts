/**
 * The root CA publisher over a registry: every namespace gets `kube-root-ca.crt`, which the
 * ServiceAccount admission plugin's token volume mounts, and it is put back when deleted or
 * changed (the reference's rootcacertpublisher, publisher_test.go's cases). The annotation text
 * is the reference's constant. A bare server does not run it (kube-apiserver does not; the
 * controller manager of a whole cluster does).
 */
import assert from 'node:assert/strict'
import type { GenericStore } from '../../../src/server/api/registry/generic-store.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { CONTROLLERS, type ControllerDeps, buildControllers } from '../../../src/server/controllers/index.js'
import { ControllerManager } from '../../../src/server/controllers/manager.js'
import { RootCACertPublisher } from '../../../src/server/controllers/root-ca-cert-publisher.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const CA = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n'
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.'

describe('controllers: root-ca-cert-publisher', function () {
  this.timeout(15_000)
  let t: TestRegistry
  let manager: ControllerManager
  const store = (resource: string): GenericStore => t.registry.lookup('', 'v1', resource)!
  const published = async (namespace: string): Promise<KubeObject | undefined> => {
    const { items } = await store('configmaps').list({ namespace })
    return items.find((cm) => cm.metadata.name === 'kube-root-ca.crt')
  }
  const holdsCa = async (namespace: string) => {
    const cm = await published(namespace)
    return (cm?.data as Record<string, string> | undefined)?.['ca.crt'] === CA && cm?.metadata.annotations?.['kubernetes.io/description'] === DESCRIPTION
  }

  beforeEach(async () => {
    t = await openTestRegistry('root-ca-', ['default', 'kube-system'])
    manager = new ControllerManager([new RootCACertPublisher(CA)])
    await manager.start({ registry: t.registry, ready: Promise.resolve(true), log: () => {} })
  })
  afterEach(async () => {
    await manager.stop()
    await t.close()
  })

  it('publishes the CA in every namespace there at start, with the description annotation and only ca.crt', async () => {
    await eventually(() => holdsCa('default'), 'kube-root-ca.crt in default')
    await eventually(() => holdsCa('kube-system'), 'kube-root-ca.crt in kube-system')
    assert.deepEqual((await published('default'))!.data, { 'ca.crt': CA })
  })

  it('publishes it in a namespace created later', async () => {
    await store('namespaces').create({ metadata: { name: 'team-a' } })
    await eventually(() => holdsCa('team-a'), 'kube-root-ca.crt in team-a')
  })

  it('puts it back when deleted', async () => {
    await eventually(() => holdsCa('default'), 'kube-root-ca.crt in default')
    await store('configmaps').delete('default', 'kube-root-ca.crt')
    await eventually(async () => (await published('default')) !== undefined && (await holdsCa('default')), 'kube-root-ca.crt back in default')
  })

  it('puts back changed data and a removed annotation, keeping other annotations', async () => {
    await eventually(() => holdsCa('default'), 'kube-root-ca.crt in default')
    await store('configmaps').rewrite('default', 'kube-root-ca.crt', (cm) => {
      cm.data = { 'ca.crt': 'not a CA', extra: 'x' }
      cm.metadata.annotations = { keep: 'me' }
    })
    await eventually(() => holdsCa('default'), 'the data and annotation put back')
    const cm = (await published('default'))!
    assert.deepEqual(cm.data, { 'ca.crt': CA })
    assert.equal(cm.metadata.annotations?.keep, 'me')
  })

  it('does not publish into a terminating namespace', async () => {
    await store('namespaces').create({ metadata: { name: 'going' } })
    await eventually(() => holdsCa('going'), 'kube-root-ca.crt in going')
    await store('namespaces').delete(undefined, 'going')
    await eventually(async () => !(await store('namespaces').list()).items.some((ns) => ns.metadata.name === 'going'), 'the namespace to go', 10_000)
    assert.equal(await published('going'), undefined)
  })
})

describe('controllers: root-ca-cert-publisher in the table', () => {
  const names = (deps: Partial<ControllerDeps>) =>
    buildControllers({ config: {}, rootCaPem: CA, ...deps } as ControllerDeps, CONTROLLERS.filter((e) => e.name === 'root-ca-cert-publisher' || e.name === 'namespace-controller')).map((c) => c.name)

  it('runs only in a whole cluster, beside the controllers the server always runs', () => {
    assert.deepEqual(names({}), ['namespace-controller'])
    assert.deepEqual(names({ cluster: true }), ['namespace-controller', 'root-ca-cert-publisher'])
  })
})
