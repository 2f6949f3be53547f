/**
 * NamespaceLifecycle on DELETE (the reference's lifecycle admission.go): the three system
 * namespaces may not be deleted (`namespaces "kube-system" is forbidden: this namespace may not
 * be deleted`, 403), dry run included; other namespaces and other kinds are deleted as before.
 * The refusal is the plugin's: with NamespaceLifecycle disabled the store deletes them, as the
 * reference's does.
 */
import assert from 'node:assert/strict'
import { admissionFromConfig } from '../../../src/server/admission/from-config.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { Registry } from '../../../src/server/api/registry/registry.js'
import { type TestRegistry, openTestRegistry } from '../api/support.js'

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err))
    return err
  }
  assert.fail('expected a refusal')
}

describe('admission: NamespaceLifecycle keeps the system namespaces', () => {
  let t: TestRegistry
  const namespaces = () => t.registry.lookup('', 'v1', 'namespaces')!

  beforeEach(async () => {
    t = await openTestRegistry('immortal-', ['default', 'kube-system', 'kube-public', 'team'])
  })
  afterEach(() => t.close())

  for (const name of ['default', 'kube-system', 'kube-public']) {
    it(`refuses deleting ${name}, dry run too`, async () => {
      for (const dryRun of [false, true]) {
        const err = await refusal(namespaces().delete(undefined, name, { dryRun }))
        assert.equal(err.status.code, 403)
        assert.equal(err.status.reason, 'Forbidden')
        assert.equal(err.status.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`)
        assert.deepEqual(err.status.details, { name, kind: 'namespaces' })
      }
      assert.equal((await namespaces().get(undefined, name)).metadata.name, name)
    })
  }

  it('deletes any other namespace, and objects in the system ones', async () => {
    const configmaps = t.registry.lookup('', 'v1', 'configmaps')!
    await configmaps.create({ metadata: { name: 'c', namespace: 'kube-system' } })
    await configmaps.delete('kube-system', 'c')
    const team = await namespaces().delete(undefined, 'team')
    assert.equal((team.status as { phase?: string }).phase, 'Terminating')
  })

  it('without the plugin the store deletes a system namespace (the refusal is admission\'s)', async () => {
    const log = { v: () => {}, warning: () => {} }
    const admission = admissionFromConfig({ config: { admissionPlugins: { enable: [], disable: ['NamespaceLifecycle'], given: true } }, stores: () => registry, log })
    const registry: Registry = new Registry(t.store, undefined, undefined, { admission })
    try {
      const gone = await registry.lookup('', 'v1', 'namespaces')!.delete(undefined, 'kube-public', { dryRun: true })
      assert.equal(gone.metadata.name, 'kube-public')
    } finally {
      admission.stop()
      registry.stop()
    }
  })
})
