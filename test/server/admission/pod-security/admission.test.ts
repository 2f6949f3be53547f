/**
 * The PodSecurity plugin (the reference's pod-security-admission/admission/admission.go and its
 * apiserver plugin): namespace labels and defaults, enforce/audit/warn with the reference's
 * messages, workload templates, exemptions, label validation and the namespace update's
 * dry run of existing pods. Messages are the reference's format strings over the reference's
 * check details.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../../src/server/admission/attributes.js'
import { PodSecurity } from '../../../../src/server/admission/pod-security/admission.js'
import { setAllowPrivileged } from '../../../../src/server/api/kinds/capabilities.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { ApiError } from '../../../../src/server/api/status-errors.js'
import { type TestRegistry, openTestRegistry } from '../../api/support.js'

const PRIVILEGED_POD_DETAIL =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'

const privilegedPod = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] },
})

const restrictedPod = (name: string, namespace: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'busybox', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
  },
})

function podAttributes(pod: KubeObject, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: pod.metadata.namespace ?? '',
    name: pod.metadata.name ?? '',
    object: pod,
    dryRun: false,
    ...over,
  }
}

function namespaceAttributes(operation: AdmissionOperation, ns: KubeObject, old?: KubeObject): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    subresource: '',
    namespace: '',
    name: ns.metadata.name ?? '',
    object: ns,
    ...(old ? { oldObject: old } : {}),
    dryRun: false,
  }
}

const namespace = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })

async function refusal(p: Promise<void>): Promise<ApiError> {
  try {
    await p
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  assert.fail('expected a refusal')
}

describe('PodSecurity admission plugin', function () {
  this.timeout(20000)
  let t: TestRegistry
  const plugin = (config?: unknown) => new PodSecurity({ stores: () => t.registry, config: {}, log: () => {} }, config)
  const createNamespace = (name: string, labels: Record<string, string>) => t.registry.lookup('', 'v1', 'namespaces')!.create(namespace(name, labels))

  before(async () => {
    // As the server with --allow-privileged: pod validation lets privileged containers through to admission.
    setAllowPrivileged(true)
    t = await openTestRegistry('podsec-', ['default'])
    await createNamespace('restricted', { 'pod-security.kubernetes.io/enforce': 'restricted' })
    await createNamespace('warned', { 'pod-security.kubernetes.io/warn': 'restricted' })
    await createNamespace('audited', { 'pod-security.kubernetes.io/audit': 'baseline' })
    await createNamespace('old-baseline', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.26' })
  })
  after(async () => {
    setAllowPrivileged(false)
    await t.close()
  })

  it('enforce: a privileged pod is refused with the reference status and message', async () => {
    const ps = plugin()
    const a = podAttributes(privilegedPod('x', 'restricted'))
    const err = await refusal(ps.validate(a))
    assert.equal(err.code, 403)
    assert.equal(err.status.reason, 'Forbidden')
    assert.equal(err.status.message, `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`)
    assert.deepEqual(err.status.details, { name: 'x', kind: 'pods' })
    assert.equal(a.annotations?.['pod-security.kubernetes.io/enforce-policy'], 'restricted:latest')
    assert.equal(a.warnings, undefined, 'no warnings on a refused request')
    ps.stop()
  })

  it('enforce: a pod named by generateName is refused under its resource alone', async () => {
    const ps = plugin()
    const pod = privilegedPod('gen-abcde', 'restricted')
    pod.metadata.generateName = 'gen-'
    const err = await refusal(ps.validate(podAttributes(pod, { name: '' })))
    assert.equal(err.status.message, `pods is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`)
    ps.stop()
  })

  it('enforce: a pod meeting the level is admitted', async () => {
    const ps = plugin()
    const a = podAttributes(restrictedPod('ok', 'restricted'))
    await ps.validate(a)
    assert.deepEqual(a.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'restricted:latest' })
    ps.stop()
  })

  it('warn: the pod is admitted with the would-violate warning', async () => {
    const ps = plugin()
    const a = podAttributes(privilegedPod('x', 'warned'))
    await ps.validate(a)
    assert.deepEqual(a.warnings, [`would violate PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`])
    assert.equal(a.annotations?.['pod-security.kubernetes.io/enforce-policy'], 'privileged:latest')
    ps.stop()
  })

  it('audit: the violations go to the audit annotation, no warning', async () => {
    const ps = plugin()
    const a = podAttributes(privilegedPod('x', 'audited'))
    await ps.validate(a)
    assert.equal(a.annotations?.['pod-security.kubernetes.io/audit-violations'], 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)')
    assert.equal(a.warnings, undefined)
    ps.stop()
  })

  it('versions: a sysctl allowed from v1.27 is refused in a namespace enforcing baseline v1.26', async () => {
    const ps = plugin()
    const pod: KubeObject = { metadata: { name: 's', namespace: 'old-baseline' }, spec: { securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1024-4999' }] }, containers: [{ name: 'c', image: 'busybox' }] } }
    const err = await refusal(ps.validate(podAttributes(pod)))
    assert.equal(err.status.message, 'pods "s" is forbidden: violates PodSecurity "baseline:v1.26": forbidden sysctls (net.ipv4.ip_local_reserved_ports)')
    ps.stop()
  })

  it('workloads: a deployment template is warned and audited, never refused', async () => {
    const ps = plugin()
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'restricted' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: privilegedPod('', '').spec } },
    }
    const attributes = (ns: string) => podAttributes({ ...deployment, metadata: { name: 'd', namespace: ns } }, { kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' } })
    const enforced = attributes('restricted')
    await ps.validate(enforced)
    assert.equal(enforced.warnings, undefined, 'enforce alone says nothing about templates')
    const warned = attributes('warned')
    await ps.validate(warned)
    assert.deepEqual(warned.warnings, [`would violate PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`])
    assert.equal(warned.annotations?.['pod-security.kubernetes.io/enforce-policy'], undefined)
    ps.stop()
  })

  it('defaults: without labels, the configuration defaults apply; without configuration, privileged', async () => {
    const none = plugin()
    const a = podAttributes(privilegedPod('x', 'default'))
    await none.validate(a)
    assert.deepEqual(a.annotations, { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' })
    none.stop()
    const configured = plugin({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline', warn: 'restricted' } })
    const err = await refusal(configured.validate(podAttributes(privilegedPod('x', 'default'))))
    assert.equal(err.status.message, 'pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)')
    const b = podAttributes(restrictedPod('y', 'default'))
    const noDrop = structuredClone(b.object!)
    ;(noDrop.spec as { containers: { securityContext: Record<string, unknown> }[] }).containers[0]!.securityContext = { allowPrivilegeEscalation: false }
    const warned = podAttributes(noDrop)
    await configured.validate(warned)
    assert.deepEqual(warned.warnings, ['would violate PodSecurity "restricted:latest": unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])'])
    configured.stop()
  })

  it('exemptions: namespaces, usernames and runtime classes pass with the exempt annotation', async () => {
    const ps = plugin({
      apiVersion: 'pod-security.admission.config.k8s.io/v1',
      kind: 'PodSecurityConfiguration',
      exemptions: { namespaces: ['restricted'], usernames: ['admin'], runtimeClasses: ['kata'] },
    })
    const byNamespace = podAttributes(privilegedPod('x', 'restricted'))
    await ps.validate(byNamespace)
    assert.deepEqual(byNamespace.annotations, { 'pod-security.kubernetes.io/exempt': 'namespace' })
    const ps2 = plugin({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', exemptions: { usernames: ['admin'], runtimeClasses: ['kata'] } })
    const byUser = podAttributes(privilegedPod('x', 'restricted'), { userInfo: { name: 'admin', groups: [] } })
    await ps2.validate(byUser)
    assert.deepEqual(byUser.annotations, { 'pod-security.kubernetes.io/exempt': 'user' })
    const kata = privilegedPod('x', 'restricted')
    ;(kata.spec as Record<string, unknown>).runtimeClassName = 'kata'
    const byRuntimeClass = podAttributes(kata)
    await ps2.validate(byRuntimeClass)
    assert.deepEqual(byRuntimeClass.annotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' })
    await refusal(ps2.validate(podAttributes(privilegedPod('x', 'restricted'), { userInfo: { name: 'someone', groups: [] } })))
    // An exempt namespace labelled with a policy is told the policy is ignored.
    const created = namespaceAttributes('CREATE', namespace('restricted', { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'baseline' }))
    await ps.validate(created)
    assert.deepEqual(created.warnings, ['namespace "restricted" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=baseline:latest) will be ignored'])
    ps.stop()
    ps2.stop()
  })

  it('labels: an invalid value is refused on create (422), and on update only when it changes', async () => {
    const ps = plugin()
    const err = await refusal(ps.validate(namespaceAttributes('CREATE', namespace('bad', { 'pod-security.kubernetes.io/enforce': 'foo', 'pod-security.kubernetes.io/warn-version': 'v2.0' }))))
    assert.equal(err.code, 422)
    assert.equal(err.status.reason, 'Invalid')
    assert.equal(
      err.status.message,
      'Namespace "bad" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v2.0": must be "latest" or "v1.x"]',
    )
    const stale = namespace('bad', { 'pod-security.kubernetes.io/enforce': 'foo' })
    await ps.validate(namespaceAttributes('UPDATE', { ...stale, metadata: { ...stale.metadata, annotations: { a: 'b' } } }, stale))
    await refusal(ps.validate(namespaceAttributes('UPDATE', namespace('bad', { 'pod-security.kubernetes.io/enforce': 'bar' }), stale)))
    ps.stop()
  })

  it('labels: a pod in a namespace whose enforce label does not parse is held to restricted, with the error audited', async () => {
    const ps = plugin()
    const store = t.registry.lookup('', 'v1', 'namespaces')!
    // Written past admission, as a namespace labelled before the plugin ran would be.
    await t.store.create('/namespaces/unparsed', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'unparsed', labels: { 'pod-security.kubernetes.io/enforce': 'foo' } }, status: { phase: 'Active' } })))
    assert.ok(await store.get(undefined, 'unparsed'))
    const a = podAttributes(privilegedPod('x', 'unparsed'))
    const err = await refusal(ps.validate(a))
    assert.equal(err.status.message, `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`)
    assert.equal(a.annotations?.['pod-security.kubernetes.io/error'], 'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted')
    ps.stop()
  })

  it('namespace update: a stricter enforce level warns of the existing pods that violate it', async () => {
    const ps = plugin()
    await createNamespace('existing', {})
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await pods.create(privilegedPod('p1', 'existing'))
    await pods.create(privilegedPod('p0', 'existing'))
    await pods.create(restrictedPod('fine', 'existing'))
    const old = namespace('existing')
    const updated = namespaceAttributes('UPDATE', namespace('existing', { 'pod-security.kubernetes.io/enforce': 'restricted' }), old)
    await ps.validate(updated)
    assert.deepEqual(updated.warnings, [
      'existing pods in namespace "existing" violate the new PodSecurity enforce level "restricted:latest"',
      'p0 (and 1 other pod): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    ])
    // Relaxing at the same version, or enforcing privileged, checks nothing.
    const relaxed = namespaceAttributes('UPDATE', namespace('existing', { 'pod-security.kubernetes.io/enforce': 'baseline' }), namespace('existing', { 'pod-security.kubernetes.io/enforce': 'restricted' }))
    await ps.validate(relaxed)
    assert.equal(relaxed.warnings, undefined)
    ps.stop()
  })

  it('pod updates: only a significant change is evaluated', async () => {
    const ps = plugin()
    const old = privilegedPod('x', 'restricted')
    const labelled = structuredClone(old)
    labelled.metadata.labels = { a: 'b' }
    await ps.validate(podAttributes(labelled, { operation: 'UPDATE', oldObject: old }))
    const reimaged = structuredClone(old)
    ;(reimaged.spec as { containers: { image: string }[] }).containers[0]!.image = 'busybox:2'
    await refusal(ps.validate(podAttributes(reimaged, { operation: 'UPDATE', oldObject: old })))
    // Ignored subresources are never evaluated.
    await ps.validate(podAttributes(reimaged, { operation: 'UPDATE', oldObject: old, subresource: 'status' }))
    ps.stop()
  })

  it('configuration: invalid values are refused with the reference field errors', () => {
    assert.throws(
      () => plugin({ apiVersion: 'pod-security.admission.config.k8s.io/v1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'foo', 'audit-version': '1.2' }, exemptions: { namespaces: ['Bad_NS'], usernames: ['', 'a', 'a'] } }),
      (err: Error) => {
        assert.equal(
          err.message,
          '[defaults.enforce: Invalid value: "foo": must be one of privileged, baseline, restricted, defaults.audit-version: Invalid value: "1.2": must be "latest" or "v1.x", ' +
            `exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), ` +
            'exemptions.usernames[0]: Required value, exemptions.usernames[2]: Duplicate value: "a"]',
        )
        return true
      },
    )
  })

  it('through the registry: the default chain refuses the pod before it is stored', async () => {
    const pods = t.registry.lookup('', 'v1', 'pods')!
    await assert.rejects(pods.create(privilegedPod('stored', 'restricted')), (err: ApiError) => err.code === 403 && err.status.message === `pods "stored" is forbidden: violates PodSecurity "restricted:latest": ${PRIVILEGED_POD_DETAIL}`)
    await assert.rejects(pods.get('restricted', 'stored'), (err: ApiError) => err.code === 404)
  })
})
