/**
 * PodSecurity end to end with the real kubectl (1.35 and 1.32): in a namespace labelled
 * `pod-security.kubernetes.io/enforce=restricted` a privileged pod is refused with the
 * reference's full violation message, as kubectl prints a real cluster's; labelled
 * `warn=restricted`, the pod is created and kubectl prints the warning; labelling a namespace
 * with existing privileged pods enforce=restricted warns of them. The server runs with
 * --allow-privileged so that pod validation hands privileged containers to admission, as a
 * cluster allowing them does. Expected texts: the reference's check details and admission
 * messages (pod-security-admission/policy and admission), kubectl's `Error from server` and
 * `Warning:` lines.
 */
import assert from 'node:assert/strict'
import { KubectlSession } from '../../../support/kubectl-session.js'
import { describeEachKubectl } from '../../../support/kubectl-versions.js'

const POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: priv\nspec:\n  containers:\n  - name: c\n    image: busybox\n    securityContext:\n      privileged: true\n'

const DETAIL =
  'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'

describeEachKubectl('admission: PodSecurity with the real kubectl (end to end)', function (client) {
  this.timeout(120_000)
  let session: KubectlSession

  before(async function () {
    session = await KubectlSession.open(this, 'pod-security-', { waitFor: 'ready', kubectl: client.tool, args: ['--allow-privileged=true'] })
  })
  after(async () => {
    await session?.close()
  })

  it('enforce=restricted: a privileged pod is refused with the full violation message', async () => {
    await session.ok('create', 'namespace', 'locked')
    assert.equal(await session.ok('label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce=restricted'), 'namespace/locked labeled\n')
    const file = session.file('priv.yaml', POD)
    const r = await session.run('apply', '-n', 'locked', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, `Error from server (Forbidden): error when creating "${file}": pods "priv" is forbidden: violates PodSecurity "restricted:latest": ${DETAIL}\n`)
    const get = await session.run('get', 'pod', 'priv', '-n', 'locked')
    assert.equal(get.stderr, 'Error from server (NotFound): pods "priv" not found\n')
  })

  it('enforce=restricted: an invalid level on a new namespace is refused (422)', async () => {
    const file = session.file('ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: typo\n  labels:\n    pod-security.kubernetes.io/enforce: restricted-ish\n')
    const r = await session.run('create', '-f', file)
    assert.equal(r.code, 1)
    assert.equal(r.stderr, 'The Namespace "typo" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "restricted-ish": must be one of privileged, baseline, restricted\n')
  })

  it('warn=restricted: the pod is created and kubectl prints the warning', async () => {
    await session.ok('create', 'namespace', 'warned')
    await session.ok('label', 'namespace', 'warned', 'pod-security.kubernetes.io/warn=restricted')
    const r = await session.run('apply', '-n', 'warned', '-f', session.file('priv-warned.yaml', POD))
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'pod/priv created\n')
    assert.equal(r.stderr, `Warning: would violate PodSecurity "restricted:latest": ${DETAIL}\n`)
  })

  it('labelling a namespace with a privileged pod enforce=restricted warns of the pod', async () => {
    await session.ok('create', 'namespace', 'tighten')
    assert.equal(await session.ok('apply', '-n', 'tighten', '-f', session.file('priv-tighten.yaml', POD)), 'pod/priv created\n')
    const r = await session.run('label', 'namespace', 'tighten', 'pod-security.kubernetes.io/enforce=restricted')
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, 'namespace/tighten labeled\n')
    assert.equal(
      r.stderr,
      'Warning: existing pods in namespace "tighten" violate the new PodSecurity enforce level "restricted:latest"\n' +
        'Warning: priv: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\n',
    )
  })
})
