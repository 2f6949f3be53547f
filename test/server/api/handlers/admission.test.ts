/**
 * Where the write handlers and the generic store run admission, as the reference's
 * endpoints/handlers (create.go, update.go, patch.go, delete.go) and
 * registry/generic/registry/store.go do: a create or an update goes to the mutating plugins
 * before the kind's validation (a refusal there wins over an invalid object; what they change is
 * validated and stored) and to the validating ones after it, just before the write; a deletion
 * goes to both with the stored object; dryRun reaches the plugins and nothing is stored; the
 * attributes carry the request's user, options and subresource; warnings become `Warning`
 * headers and audit annotations stay on the request.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionHook } from '../../../../src/server/api/registry/admission-hook.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { errors } from '../../../../src/server/api/status-errors.js'
import type { RequestContext } from '../../../../src/server/http/types.js'
import { ADMIN, type InProcessApi, openInProcessApi } from './in-process-api.js'

interface Seen {
  phase: 'admit' | 'validate'
  operation: string
  name: string
  namespace: string
  subresource: string
  dryRun: boolean
  options: Record<string, unknown> | undefined
  user: string | undefined
  object: KubeObject | undefined
  oldObject: KubeObject | undefined
}

const CMS = '/api/v1/namespaces/default/configmaps'
const cm = (name: string, data: Record<string, string> = { k: 'v' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })

describe('api/handlers: the admission chain on every write', () => {
  let api: InProcessApi
  const seen: Seen[] = []
  const contexts: RequestContext[] = []
  /** What the plugins do, per test: runs in each phase with the live attributes. */
  let behave: (phase: 'admit' | 'validate', a: AdmissionAttributes) => void = () => {}

  const record = (phase: 'admit' | 'validate') => async (a: AdmissionAttributes) => {
    seen.push({
      phase,
      operation: a.operation,
      name: a.name,
      namespace: a.namespace,
      subresource: a.subresource,
      dryRun: a.dryRun,
      options: a.options as Record<string, unknown> | undefined,
      user: a.userInfo?.name,
      object: a.object && structuredClone(a.object),
      oldObject: a.oldObject && structuredClone(a.oldObject),
    })
    behave(phase, a)
  }
  const hook: AdmissionHook = { admit: record('admit'), validate: record('validate') }

  before(async () => {
    api = await openInProcessApi('admission-handlers-', { admission: hook }, (ctx) => contexts.push(ctx))
    // The namespaces the store's checks need are written by the server's bootstrap; here by hand.
    assert.equal((await api.call('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201)
  })
  after(() => api.close())
  beforeEach(() => {
    seen.length = 0
    contexts.length = 0
    behave = () => {}
  })

  it('create: mutating plugins first (their change is validated and stored), validating ones after validation, with the user and CreateOptions', async () => {
    behave = (phase, a) => {
      if (phase === 'admit') a.object!.metadata.labels = { admitted: 'yes' }
    }
    const created = await api.call('POST', `${CMS}?fieldManager=tester`, cm('a'))
    assert.equal(created.status, 201, created.text)
    assert.deepEqual((created.body.metadata as KubeObject['metadata']).labels, { admitted: 'yes' })
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit CREATE', 'validate CREATE'])
    const [admit, validate] = seen as [Seen, Seen]
    assert.equal(admit.name, 'a')
    assert.equal(admit.namespace, 'default')
    assert.equal(admit.user, ADMIN.name)
    assert.deepEqual(admit.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' })
    // The validating plugins see the object as it will be stored: its uid and managed fields are set by then.
    assert.equal(admit.object!.metadata.uid, undefined)
    assert.equal(validate.object!.metadata.uid, (created.body.metadata as KubeObject['metadata']).uid)
    assert.ok(Array.isArray(validate.object!.metadata.managedFields))
    assert.equal(admit.oldObject, undefined)
  })

  it('create: a mutating refusal wins over an invalid object; an invalid object never reaches the validating plugins; an invalid mutation is refused', async () => {
    const bad = cm('b')
    ;(bad.metadata as Record<string, unknown>).labels = { 'bad key!': 'x' }
    behave = (phase) => {
      if (phase === 'admit') throw errors.forbidden({ group: '', resource: 'configmaps' }, 'b', 'no')
    }
    const refused = await api.call('POST', CMS, bad)
    assert.equal(refused.status, 403)
    assert.equal(refused.body.message, 'configmaps "b" is forbidden: no')

    seen.length = 0
    behave = () => {}
    const invalid = await api.call('POST', CMS, bad)
    assert.equal(invalid.status, 422)
    assert.deepEqual(seen.map((s) => s.phase), ['admit'])

    behave = (phase, a) => {
      if (phase === 'admit') a.object!.metadata.labels = { 'bad key!': 'x' }
    }
    assert.equal((await api.call('POST', CMS, cm('c'))).status, 422)
    assert.equal((await api.call('GET', `${CMS}/c`)).status, 404)
  })

  it('create: a validating refusal stores nothing; generateName is admitted with the name the request presents', async () => {
    behave = (phase) => {
      if (phase === 'validate') throw errors.forbidden({ group: '', resource: 'configmaps' }, 'd', 'not now')
    }
    const refused = await api.call('POST', CMS, cm('d'))
    assert.equal(refused.status, 403)
    assert.equal((await api.call('GET', `${CMS}/d`)).status, 404)

    behave = () => {}
    seen.length = 0
    const generated = await api.call('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } })
    assert.equal(generated.status, 201)
    assert.deepEqual(seen.map((s) => s.name), ['', ''])
  })

  it('dry run: the plugins are told, nothing is stored (create and delete)', async () => {
    const created = await api.call('POST', `${CMS}?dryRun=All`, cm('dry'))
    assert.equal(created.status, 201)
    assert.ok(seen.every((s) => s.dryRun))
    assert.deepEqual(seen[0]!.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] })
    assert.equal((await api.call('GET', `${CMS}/dry`)).status, 404)

    assert.equal((await api.call('POST', CMS, cm('kept'))).status, 201)
    seen.length = 0
    const deleted = await api.call('DELETE', `${CMS}/kept?dryRun=All`)
    assert.equal(deleted.status, 200)
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation} ${s.dryRun}`), ['admit DELETE true', 'validate DELETE true'])
    assert.equal((await api.call('GET', `${CMS}/kept`)).status, 200)
  })

  it('update (PUT), patch and server-side apply: the new object with the stored one, UpdateOptions or PatchOptions', async () => {
    assert.equal((await api.call('POST', CMS, cm('u'))).status, 201)
    seen.length = 0
    const put = await api.call('PUT', `${CMS}/u`, cm('u', { k: 'put' }))
    assert.equal(put.status, 200, put.text)
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation}`), ['admit UPDATE', 'validate UPDATE'])
    assert.deepEqual(seen[0]!.object!.data, { k: 'put' })
    assert.deepEqual(seen[0]!.oldObject!.data, { k: 'v' })
    assert.equal(seen[0]!.options!.kind, 'UpdateOptions')

    seen.length = 0
    const patched = await api.call('PATCH', `${CMS}/u`, { data: { k: 'patched' } }, ADMIN, 'application/merge-patch+json')
    assert.equal(patched.status, 200, patched.text)
    assert.equal(seen[0]!.operation, 'UPDATE')
    assert.equal(seen[0]!.options!.kind, 'PatchOptions')
    assert.deepEqual(seen[0]!.oldObject!.data, { k: 'put' })
    assert.deepEqual(seen[0]!.object!.data, { k: 'patched' })

    seen.length = 0
    const applied = await api.call('PATCH', `${CMS}/u?fieldManager=applier&force=true`, cm('u', { k: 'applied' }), ADMIN, 'application/apply-patch+yaml')
    assert.equal(applied.status, 200, applied.text)
    assert.equal(seen[0]!.operation, 'UPDATE')
    assert.deepEqual(seen[0]!.options, { kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1', force: true, fieldManager: 'applier' })

    // An apply that creates is admitted as a create, its options as CreateOptions.
    seen.length = 0
    const applyCreated = await api.call('PATCH', `${CMS}/new-by-apply?fieldManager=applier`, cm('new-by-apply'), ADMIN, 'application/apply-patch+yaml')
    assert.equal(applyCreated.status, 201, applyCreated.text)
    assert.deepEqual(seen.map((s) => `${s.phase} ${s.operation} ${String(s.options!.kind)}`), ['admit CREATE CreateOptions', 'validate CREATE CreateOptions'])
  })

  it('subresources: a status write is admitted with the status subresource, a scale write with scale', async () => {
    assert.equal((await api.call('POST', '/api/v1/namespaces/default/replicationcontrollers', rc('r'))).status, 201)
    seen.length = 0
    const status = await api.call('PATCH', '/api/v1/namespaces/default/replicationcontrollers/r/status', { status: { replicas: 0, observedGeneration: 1 } }, ADMIN, 'application/merge-patch+json')
    assert.equal(status.status, 200, status.text)
    assert.deepEqual(seen.map((s) => `${s.operation} ${s.subresource}`), ['UPDATE status', 'UPDATE status'])
    seen.length = 0
    const scaled = await api.call('PATCH', '/api/v1/namespaces/default/replicationcontrollers/r/scale', { spec: { replicas: 3 } }, ADMIN, 'application/merge-patch+json')
    assert.equal(scaled.status, 200, scaled.text)
    assert.deepEqual(seen.map((s) => `${s.operation} ${s.subresource}`), ['UPDATE scale', 'UPDATE scale'])
  })

  it('delete: the stored object and DeleteOptions; a refusal keeps the object; deletecollection admits each item under the collection\'s empty name', async () => {
    assert.equal((await api.call('POST', CMS, cm('x'))).status, 201)
    seen.length = 0
    behave = (phase) => {
      if (phase === 'validate') throw errors.forbidden({ group: '', resource: 'configmaps' }, 'x', 'keep it')
    }
    const refused = await api.call('DELETE', `${CMS}/x?gracePeriodSeconds=5`)
    assert.equal(refused.status, 403, refused.text)
    assert.equal((await api.call('GET', `${CMS}/x`)).status, 200)
    const [admit] = seen as [Seen]
    assert.equal(admit.operation, 'DELETE')
    assert.equal(admit.name, 'x')
    assert.equal(admit.object, undefined)
    assert.equal(admit.oldObject!.metadata.name, 'x')
    assert.deepEqual(admit.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 5 })

    behave = () => {}
    seen.length = 0
    const all = await api.call('DELETE', CMS)
    assert.equal(all.status, 200, all.text)
    const deletes = seen.filter((s) => s.operation === 'DELETE' && s.phase === 'validate')
    assert.ok(deletes.length >= 2, `every item is admitted: ${deletes.length}`)
    assert.ok(deletes.every((s) => s.name === '' && s.oldObject?.metadata.name !== undefined))
  })

  it('warnings become Warning headers and audit annotations stay on the request, refused or not', async () => {
    behave = (phase, a) => {
      ;(a.warnings ??= []).push(`${phase} warns`)
      a.annotations = { ...a.annotations, [`example.admission.k8s.io/${phase}`]: 'seen' }
      if (phase === 'validate' && a.name === 'refused') throw errors.forbidden({ group: '', resource: 'configmaps' }, 'refused', 'no')
    }
    const created = await api.call('POST', CMS, cm('warned'))
    assert.equal(created.status, 201)
    assert.deepEqual(created.headers.warning, '299 - "admit warns", 299 - "validate warns"')
    assert.deepEqual(contexts.at(-1)!.auditAnnotations, { 'example.admission.k8s.io/admit': 'seen', 'example.admission.k8s.io/validate': 'seen' })

    const refused = await api.call('POST', CMS, cm('refused'))
    assert.equal(refused.status, 403)
    assert.equal(refused.headers.warning, '299 - "admit warns", 299 - "validate warns"')
    assert.deepEqual(contexts.at(-1)!.auditAnnotations, { 'example.admission.k8s.io/admit': 'seen', 'example.admission.k8s.io/validate': 'seen' })
  })
})

function rc(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: { replicas: 1, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  }
}
