/**
 * The ServiceAccount plugin against the cases of the reference's
 * plugin/pkg/admission/serviceaccount/admission_test.go, with the messages of its admission.go.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { DEFAULT_API_TOKEN_MOUNT_PATH, ServiceAccount } from '../../../src/server/admission/serviceaccount.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import { type TestRegistry, eventually, openTestRegistry } from '../api/support.js'

const NS = 'myns'
/** The reference test's generateName: the base and `abc123`. */
const testGenerateName = (base: string) => `${base}abc123`
const GENERATED_VOLUME_NAME = 'kube-api-access-abc123'

/** The reference's TokenVolumeSource, as its v1 JSON. */
const EXPECTED_TOKEN_VOLUME = {
  name: GENERATED_VOLUME_NAME,
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 0o644,
  },
}
const EXPECTED_MOUNT = { name: GENERATED_VOLUME_NAME, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }

function attributes(object: KubeObject | undefined, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: NS,
    name: 'myname',
    object,
    dryRun: false,
    ...over,
  }
}

const pod = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'myname', namespace: NS, ...(annotations ? { annotations } : {}) },
  spec,
})

const spec = (p: KubeObject) => p.spec as Record<string, any>

async function refusal(run: Promise<unknown>): Promise<ApiError> {
  try {
    await run
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err))
    return err
  }
  assert.fail('expected a refusal')
}

describe('admission: ServiceAccount (plugin/pkg/admission/serviceaccount)', () => {
  let t: TestRegistry
  const plugin = (limitSecretReferences = false) => new ServiceAccount({ stores: () => t.registry, config: {}, log: () => {} }, limitSecretReferences, testGenerateName, 1)
  let running: ServiceAccount[] = []
  const make = (limitSecretReferences = false) => {
    const p = plugin(limitSecretReferences)
    running.push(p)
    return p
  }

  /** The namespace's default account as the controller makes it, with `fields` written over it. */
  async function defaultAccount(fields: Record<string, unknown> = {}): Promise<void> {
    const sas = t.registry.lookup('', 'v1', 'serviceaccounts')!
    await eventually(async () => sas.get(NS, 'default').then(() => true, () => false), 'the default service account')
    await sas.update(NS, 'default', (current) => ({ ...current, ...fields, metadata: { ...current.metadata, ...((fields.metadata as object) ?? {}) } }))
  }

  beforeEach(async () => {
    t = await openTestRegistry('admission-sa-', [NS])
    running = []
  })
  afterEach(async () => {
    for (const p of running) p.stop()
    await t.close()
  })

  it('handles create and update only (TestIgnoresNonCreate)', () => {
    const p = make()
    for (const op of ['DELETE', 'CONNECT'] as AdmissionOperation[]) assert.equal(p.handles(op), false, op)
    for (const op of ['CREATE', 'UPDATE'] as AdmissionOperation[]) assert.equal(p.handles(op), true, op)
  })

  it('ignores other resources, a missing object and an object that is not a pod', async () => {
    const p = make()
    await p.admit(attributes(pod(), { resource: { group: '', version: 'v1', resource: 'CustomResource' } }))
    await p.admit(attributes(undefined))
    const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }
    await p.admit(attributes(namespace))
    assert.equal(namespace.spec, undefined)
  })

  it('mirror pods: allowed untouched without account or secrets; refused with an account, a secret or a token projection', async () => {
    const p = make()
    const mirror = { 'kubernetes.io/config.mirror': 'true' }
    const plain = pod({ volumes: [{ name: 'v', emptyDir: {} }] }, mirror)
    await p.admit(attributes(plain))
    assert.equal(spec(plain).serviceAccountName, undefined)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ serviceAccountName: 'default' }, 'a mirror pod may not reference service accounts'],
      [{ volumes: [{ name: 'v', secret: { secretName: 'mysecret' } }] }, 'a mirror pod may not reference secrets'],
      [{ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: {} }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
    ]
    for (const [s, why] of cases) {
      const err = await refusal(p.admit(attributes(pod(s, mirror))))
      assert.equal(err.code, 403)
      assert.equal(err.status.reason, 'Forbidden')
      assert.equal(err.message, `pods "myname" is forbidden: ${why}`)
    }
  })

  it('assigns the default account and the bound token volume, mounted read-only in every container and init container', async () => {
    await defaultAccount()
    const p = make()
    const created = pod({ containers: [{ name: 'c' }] })
    await p.admit(attributes(created))
    assert.equal(spec(created).serviceAccountName, 'default')
    // The deprecated alias, as the v1 conversion writes it.
    assert.equal(spec(created).serviceAccount, 'default')
    assert.deepEqual(spec(created).volumes, [EXPECTED_TOKEN_VOLUME])
    assert.deepEqual(spec(created).containers[0].volumeMounts, [EXPECTED_MOUNT])
    assert.deepEqual(spec(created).imagePullSecrets, [])
    const init = pod({ initContainers: [{ name: 'i' }] })
    await p.admit(attributes(init))
    assert.deepEqual(spec(init).volumes, [EXPECTED_TOKEN_VOLUME])
    assert.deepEqual(spec(init).initContainers[0].volumeMounts, [EXPECTED_MOUNT])
  })

  it('generates the volume name kube-api-access-<5 characters>', async () => {
    await defaultAccount()
    const p = new ServiceAccount({ stores: () => t.registry, config: {}, log: () => {} })
    running.push(p)
    const created = pod({ containers: [{ name: 'c' }] })
    await p.admit(attributes(created))
    assert.match(spec(created).volumes[0].name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
  })

  it('respects an existing mount at the token path, and adds no volume nobody mounts (TestRespectsExistingMount)', async () => {
    await defaultAccount()
    const p = make()
    const mount = { name: 'my-custom-mount', readOnly: false, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH }
    for (const field of ['containers', 'initContainers']) {
      const created = pod({ [field]: [{ name: 'c', volumeMounts: [mount] }] })
      await p.admit(attributes(created))
      assert.equal(spec(created).serviceAccountName, 'default')
      assert.equal(spec(created).volumes, undefined)
      assert.deepEqual(spec(created)[field][0].volumeMounts, [mount])
    }
  })

  it('does not mount the token when the pod or the account turns automounting off; the pod wins', async () => {
    await defaultAccount({ automountServiceAccountToken: false })
    const p = make()
    const off = pod({ containers: [{ name: 'c' }] })
    await p.admit(attributes(off))
    assert.equal(spec(off).volumes, undefined)
    assert.equal(spec(off).containers[0].volumeMounts, undefined)
    const podSaysYes = pod({ automountServiceAccountToken: true, containers: [{ name: 'c' }] })
    await p.admit(attributes(podSaysYes))
    assert.deepEqual(spec(podSaysYes).volumes, [EXPECTED_TOKEN_VOLUME])
    await defaultAccount({ automountServiceAccountToken: true })
    const podSaysNo = pod({ automountServiceAccountToken: false, containers: [{ name: 'c' }] })
    await p.admit(attributes(podSaysNo))
    assert.equal(spec(podSaysNo).volumes, undefined)
  })

  it('fetches an account not in memory yet (TestFetchesUncachedServiceAccount)', async () => {
    await defaultAccount()
    const other = await t.registry.lookup('', 'v1', 'serviceaccounts')!.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'fresh', namespace: NS } })
    assert.ok(other)
    const p = make()
    const created = pod({ serviceAccountName: 'fresh', containers: [{ name: 'c' }] })
    await p.admit(attributes(created))
    assert.equal(spec(created).serviceAccountName, 'fresh')
  })

  it('refuses a missing account with the reference message (TestDeniesInvalidServiceAccount)', async () => {
    const p = make()
    const missing = await refusal(p.admit(attributes(pod(), { namespace: 'nowhere' })))
    assert.equal(missing.code, 403)
    assert.equal(missing.message, 'pods "myname" is forbidden: error looking up service account nowhere/default: serviceaccount "default" not found')
    const named = await refusal(p.admit(attributes(pod({ serviceAccountName: 'ghost' }))))
    assert.equal(named.message, `pods "myname" is forbidden: error looking up service account ${NS}/ghost: serviceaccount "ghost" not found`)
  })

  it('waits for the default account its controller is about to create', async () => {
    const namespaces = t.registry.lookup('', 'v1', 'namespaces')!
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'brand-new' } })
    const p = new ServiceAccount({ stores: () => t.registry, config: {}, log: () => {} }, false, testGenerateName)
    running.push(p)
    const created = pod({ containers: [{ name: 'c' }] })
    await p.admit(attributes(created, { namespace: 'brand-new' }))
    assert.equal(spec(created).serviceAccountName, 'default')
  })

  it('allows secrets the account references when limited (TestAllowsReferencedSecret)', async () => {
    await defaultAccount({ secrets: [{ name: 'foo' }] })
    const p = make(true)
    const env = [{ name: 'env-1', valueFrom: { secretKeyRef: { name: 'foo', key: 'k' } } }]
    const envFrom = [{ secretRef: { name: 'foo' } }]
    for (const s of [
      { volumes: [{ name: 'v', secret: { secretName: 'foo' } }] },
      { containers: [{ name: 'container-1', env }] },
      { containers: [{ name: 'container-1', envFrom }] },
      { initContainers: [{ name: 'container-1', env }] },
      { initContainers: [{ name: 'container-1', envFrom }] },
    ]) {
      await p.admit(attributes(pod(s)))
    }
    for (const s of [{ ephemeralContainers: [{ name: 'container-2', env }] }, { ephemeralContainers: [{ name: 'container-2', envFrom }] }]) {
      await p.validate(attributes(pod({ serviceAccountName: 'default', ...s }), { operation: 'UPDATE', subresource: 'ephemeralcontainers' }))
    }
  })

  it('refuses secrets the account does not reference when limited (TestRejectsUnreferencedSecretVolumes)', async () => {
    await defaultAccount()
    const p = make(true)
    const env = [{ name: 'env-1', valueFrom: { secretKeyRef: { name: 'foo', key: 'k' } } }]
    const envFrom = [{ secretRef: { name: 'foo' } }]
    const refused = async (s: Record<string, unknown>) => (await refusal(p.admit(attributes(pod(s))))).message
    assert.equal(
      await refused({ volumes: [{ name: 'v', secret: { secretName: 'foo' } }] }),
      'pods "myname" is forbidden: volume with secret.secretName="foo" is not allowed because service account default does not reference that secret',
    )
    assert.equal(
      await refused({ containers: [{ name: 'container-1', env }] }),
      'pods "myname" is forbidden: container container-1 with envVar env-1 referencing secret.secretName="foo" is not allowed because service account default does not reference that secret',
    )
    assert.equal(
      await refused({ containers: [{ name: 'container-1', envFrom }] }),
      'pods "myname" is forbidden: container container-1 with envFrom referencing secret.secretName="foo" is not allowed because service account default does not reference that secret',
    )
    // Admit on update leaves the spec alone; validate on create refuses the init containers' references.
    for (const [s, what] of [
      [{ initContainers: [{ name: 'container-1', env }] }, 'init container container-1 with envVar env-1'],
      [{ initContainers: [{ name: 'container-1', envFrom }] }, 'init container container-1 with envFrom'],
    ] as const) {
      const updated = pod({ serviceAccountName: 'default', ...s })
      await p.admit(attributes(updated, { operation: 'UPDATE' }))
      const err = await refusal(p.validate(attributes(pod({ serviceAccountName: 'default', ...s }))))
      assert.equal(err.message, `pods "myname" is forbidden: ${what} referencing secret.secretName="foo" is not allowed because service account default does not reference that secret`)
    }
    // Ephemeral containers added by an update of pods/ephemeralcontainers.
    for (const [s, what] of [
      [{ ephemeralContainers: [{ name: 'container-2', env }] }, 'ephemeral container container-2 with envVar env-1'],
      [{ ephemeralContainers: [{ name: 'container-2', envFrom }] }, 'ephemeral container container-2 with envFrom'],
    ] as const) {
      const update = attributes(pod({ serviceAccountName: 'default', ...s }), { operation: 'UPDATE', subresource: 'ephemeralcontainers' })
      await p.admit(update)
      const err = await refusal(p.validate(update))
      assert.equal(err.message, `${what} referencing secret.secretName="foo" is not allowed because service account default does not reference that secret`)
    }
  })

  it('limits secrets for an account annotated kubernetes.io/enforce-mountable-secrets (TestAllowUnreferencedSecretVolumesForPermissiveSAs)', async () => {
    await defaultAccount({ metadata: { annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } })
    const err = await refusal(make(false).admit(attributes(pod({ volumes: [{ name: 'v', secret: { secretName: 'foo' } }] }))))
    assert.equal(err.code, 403)
    await defaultAccount({ metadata: { annotations: { 'kubernetes.io/enforce-mountable-secrets': 'false' } } })
    await make(false).admit(attributes(pod({ volumes: [{ name: 'v', secret: { secretName: 'foo' } }] })))
  })

  it('image pull secrets: referenced ones allowed, others refused when limited; the account fills a pod that has none', async () => {
    await defaultAccount({ imagePullSecrets: [{ name: 'foo' }] })
    await make(true).admit(attributes(pod({ imagePullSecrets: [{ name: 'foo' }] })))
    await defaultAccount({ imagePullSecrets: [] })
    const err = await refusal(make(true).admit(attributes(pod({ imagePullSecrets: [{ name: 'foo' }] }))))
    assert.equal(err.message, 'pods "myname" is forbidden: imagePullSecrets[0].name="foo" is not allowed because service account default does not reference that imagePullSecret')
    await defaultAccount({ imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] })
    const own = pod({ imagePullSecrets: [{ name: 'foo' }] })
    await make(true).admit(attributes(own))
    assert.deepEqual(spec(own).imagePullSecrets, [{ name: 'foo' }])
    const none = pod()
    await make(true).admit(attributes(none))
    assert.deepEqual(spec(none).imagePullSecrets, [{ name: 'foo' }, { name: 'bar' }])
  })

  it('through the store: a created pod gets its account and token volume; its serviceAccountName cannot change on update', async () => {
    await defaultAccount()
    const pods = t.registry.lookup('', 'v1', 'pods')!
    const created = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: NS }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })
    assert.equal(spec(created).serviceAccountName, 'default')
    assert.match(spec(created).volumes[0].name, /^kube-api-access-/)
    assert.equal(spec(created).containers[0].volumeMounts[0].mountPath, DEFAULT_API_TOKEN_MOUNT_PATH)
    await t.registry.lookup('', 'v1', 'serviceaccounts')!.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other', namespace: NS } })
    const err = await refusal(pods.update(NS, 'p', (current) => ({ ...current, spec: { ...spec(current), serviceAccountName: 'other', serviceAccount: 'other' } })))
    assert.equal(err.code, 422)
    assert.match(err.message, /spec: Forbidden: pod updates may not change fields other than/)
    // The deprecated serviceAccount alone names the account (the v1 conversion's alias).
    const aliased = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'q', namespace: NS }, spec: { serviceAccount: 'other', containers: [{ name: 'c', image: 'nginx' }] } })
    assert.equal(spec(aliased).serviceAccountName, 'other')
  })
})
