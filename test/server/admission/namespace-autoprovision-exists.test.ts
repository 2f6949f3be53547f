import assert from 'node:assert/strict'
import { NamespaceAutoProvision } from '../../../src/server/admission/namespace-autoprovision.js'
import { NamespaceExists } from '../../../src/server/admission/namespace-exists.js'
import type { PluginInitialization } from '../../../src/server/admission/plugins.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'
import { attributesFor, refusal } from './table-support.js'

// The reference's namespace/autoprovision and namespace/exists admission_test.go.
const newPod = (namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: '123', namespace },
  spec: { volumes: [{ name: 'vol' }], containers: [{ name: 'ctr', image: 'image' }] },
})
const podAttributes = (namespace: string, over: Parameters<typeof attributesFor>[0] = {}) => attributesFor({ object: newPod(namespace), namespace, name: '123', ...over })

describe('admission: NamespaceAutoProvision and NamespaceExists', () => {
  let t: TestRegistry
  let init: PluginInitialization
  beforeEach(async () => {
    t = await openTestRegistry('adm-ns-', ['existing'])
    init = { stores: () => t.registry, config: {}, log: () => {} }
  })
  afterEach(() => t.close())

  const namespaceExists = async (name: string) => (await t.store.get(`/namespaces/${name}`)) !== null

  it('AutoProvision TestAdmission: a create in a missing namespace creates it', async () => {
    await new NamespaceAutoProvision(init).admit(podAttributes('test'))
    assert.ok(await namespaceExists('test'))
    const ns = await t.registry.lookup('', 'v1', 'namespaces')!.get(undefined, 'test')
    assert.equal((ns.status as { phase?: string }).phase, 'Active')
  })

  it('AutoProvision TestAdmissionNamespaceExists: an existing namespace is left as it is', async () => {
    const before = await t.store.get('/namespaces/existing')
    await new NamespaceAutoProvision(init).admit(podAttributes('existing'))
    assert.equal((await t.store.get('/namespaces/existing'))?.modRevision, before?.modRevision)
  })

  it('AutoProvision TestIgnoreAdmission and TestAdmissionDryRun: only creates, and never in a dry run', async () => {
    const plugin = new NamespaceAutoProvision(init)
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, false, false, false])
    await plugin.admit(podAttributes('test', { dryRun: true }))
    assert.equal(await namespaceExists('test'), false)
  })

  it('AutoProvision TestAdmissionWithLatentCache: a namespace made meanwhile (AlreadyExists) admits', async () => {
    const stores = t.registry
    const racing: PluginInitialization = {
      ...init,
      stores: () => ({
        // The store read misses the namespace another request is making.
        store: { get: async () => null } as unknown as typeof stores.store,
        lookup: (g, v, r) => stores.lookup(g, v, r),
      }),
    }
    await new NamespaceAutoProvision(racing).admit(podAttributes('existing'))
  })

  it('AutoProvision: cluster-scoped objects and namespaces themselves are not its business', async () => {
    const plugin = new NamespaceAutoProvision(init)
    await plugin.admit(attributesFor({ kind: 'Namespace', resource: 'namespaces', namespace: 'test', object: { metadata: { name: 'test' } } }))
    await plugin.admit(attributesFor({ kind: 'Node', resource: 'nodes', namespace: '', object: { metadata: { name: 'n' } } }))
    assert.equal(await namespaceExists('test'), false)
  })

  it('Exists TestAdmissionNamespaceExists: a pod in an existing namespace is admitted', async () => {
    await new NamespaceExists(init).validate(podAttributes('existing'))
  })

  it("Exists TestAdmissionNamespaceDoesNotExist: a pod in a missing namespace is refused with the namespace's NotFound", async () => {
    const got = await refusal(new NamespaceExists(init).validate(podAttributes('test')))
    assert.deepEqual(got, { code: 404, reason: 'NotFound', message: 'namespaces "test" not found' })
    const plugin = new NamespaceExists(init)
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, true, true, false])
  })

  it('the two chained in the reference order: AutoProvision then Exists admits a pod in a new namespace', async () => {
    const attributes = podAttributes('fresh')
    await new NamespaceAutoProvision(init).admit(attributes)
    await new NamespaceExists(init).validate(attributes)
  })
})
