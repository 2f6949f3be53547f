/**
 * The admission chain end to end with the real kubectl: a server dry run goes through admission
 * (NamespaceLifecycle refuses a create into a namespace that does not exist, and deleting a
 * system namespace) and stores nothing; deleting kube-system is refused with the reference's
 * message (plugin/pkg/admission/namespace/lifecycle: `namespaces "kube-system" is forbidden:
 * this namespace may not be deleted`); a server given an admission configuration file starts,
 * and one given a file it cannot read stops, naming it (k8s.io/apiserver/pkg/admission
 * config.go's `unable to read admission control configuration from ...`, wrapped by
 * AdmissionOptions.ApplyTo's `failed to read plugin config: `).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startExpectingFailure } from '../../support/api-server.js'
import { KubectlSession } from '../../support/kubectl-session.js'
import { deletedLine, describeEachKubectl } from '../../support/kubectl-versions.js'

describeEachKubectl('admission: the chain with the real kubectl', function (client) {
  this.timeout(120_000)
  let session: KubectlSession
  let dir: string

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'admission-e2e-'))
    const config = join(dir, 'admission.yaml')
    // A plugin configured by a path relative to the file, another inline.
    writeFileSync(join(dir, 'lifecycle.yaml'), 'kind: Unused\n')
    writeFileSync(config, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: NamespaceLifecycle\n  path: lifecycle.yaml\n- name: ResourceQuota\n  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ResourceQuotaConfiguration}\n')
    session = await KubectlSession.open(this, 'admission-e2e-', { waitFor: 'ready', kubectl: client.tool, args: [`--admission-control-config-file=${config}`] })
  })
  after(async () => {
    await session?.close()
    rmSync(dir, { recursive: true, force: true })
  })


  it('a server dry run goes through admission and stores nothing', async () => {
    const cm = (name: string, namespace: string) => session.file(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  k: v\n`)
    assert.equal(await session.ok('create', '-f', cm('dry', 'default'), '--dry-run=server'), 'configmap/dry created (server dry run)\n')
    const absent = await session.run('get', 'cm', 'dry', '-n', 'default')
    assert.equal(absent.stderr.trim(), 'Error from server (NotFound): configmaps "dry" not found')
    // Admission saw the dry run: NamespaceLifecycle refuses a namespace that does not exist.
    const nowhere = await session.run('create', '-f', cm('lost', 'nowhere'), '--dry-run=server')
    assert.notEqual(nowhere.code, 0)
    assert.equal(nowhere.stderr.trim(), 'Error from server (NotFound): error when creating "' + join(session.tmp, 'lost.yaml') + '": namespaces "nowhere" not found')

    assert.equal(await session.ok('create', '-f', cm('kept', 'default')), 'configmap/kept created\n')
    assert.equal(await session.ok('delete', 'cm', 'kept', '-n', 'default', '--dry-run=server'), deletedLine(client, 'configmap "kept"', 'default', 'deleted', 'server'))
    assert.match(await session.ok('get', 'cm', 'kept', '-n', 'default'), /^kept\s+1\s+/m)
    const dryImmortal = await session.run('delete', 'ns', 'kube-system', '--dry-run=server')
    assert.equal(dryImmortal.stderr.trim(), 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted')
  })

  it('deleting kube-system is refused with the reference\'s message; it stays Active', async () => {
    const refused = await session.run('delete', 'namespace', 'kube-system')
    assert.equal(refused.code, 1)
    assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted')
    assert.match(await session.ok('get', 'ns', 'kube-system'), /^kube-system\s+Active\s+/m)
  })

  it('a configuration file that cannot be read stops the start-up, naming it', async () => {
    const missing = join(dir, 'missing-admission.yaml')
    const { code, output } = await startExpectingFailure(['--bind-address=127.0.0.1', '--secure-port=1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, `--admission-control-config-file=${missing}`])
    assert.equal(code, 1, output)
    assert.ok(output.includes(`Error: failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`), output)
    assert.doesNotMatch(output, /\n\s+at /)
  })
})
