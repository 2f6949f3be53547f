/**
 * --admission-control-config-file as the reference's ReadAdmissionConfiguration reads it: the
 * cases of k8s.io/apiserver/pkg/admission/config_test.go (TestReadAdmissionConfiguration: path
 * fix-up relative to the file's directory, absolute paths, the legacy unversioned file with and
 * without its plugins enabled; TestEmbeddedConfiguration: inline configuration in both
 * versions), and the reference's errors (config.go).
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AdmissionConfigError, admissionPluginConfig, readAdmissionConfiguration } from '../../../src/core/config-files/admission-config.js'

describe('core/config-files: AdmissionConfiguration', () => {
  let dir: string
  let file: string
  const write = (body: string, name = 'admission-plugin-config') => {
    file = join(dir, name)
    writeFileSync(file, body)
    return file
  }
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'admission-config-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  for (const apiVersion of ['apiserver.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1']) {
    it(`${apiVersion}: a relative path is fixed up against the file's directory, an absolute one kept`, () => {
      write(`{"apiVersion": "${apiVersion}", "kind": "AdmissionConfiguration",
"plugins": [{"name": "ImagePolicyWebhook", "path": "image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`)
      assert.deepEqual(readAdmissionConfiguration([], file), { plugins: [{ name: 'ImagePolicyWebhook', path: join(dir, 'image-policy-webhook.json') }, { name: 'ResourceQuota' }] })
      write(`{"apiVersion": "${apiVersion}", "kind": "AdmissionConfiguration",
"plugins": [{"name": "ImagePolicyWebhook", "path": "/tmp/image-policy-webhook.json"}, {"name": "ResourceQuota"}]}`)
      assert.deepEqual(readAdmissionConfiguration([], file), { plugins: [{ name: 'ImagePolicyWebhook', path: '/tmp/image-policy-webhook.json' }, { name: 'ResourceQuota' }] })
    })

    it(`${apiVersion}: inline configuration, versioned or not, is the plugin's as written (YAML too)`, () => {
      write(`apiVersion: ${apiVersion}
kind: AdmissionConfiguration
plugins:
- name: Foo
  configuration:
    apiVersion: foo.admission.k8s.io/v1alpha1
    kind: Configuration
    foo: bar
- name: Legacy
  configuration:
    foo: bar
`)
      const config = readAdmissionConfiguration(['Foo'], file)
      assert.deepEqual(admissionPluginConfig(config, 'Foo'), { apiVersion: 'foo.admission.k8s.io/v1alpha1', kind: 'Configuration', foo: 'bar' })
      assert.deepEqual(admissionPluginConfig(config, 'Legacy'), { foo: 'bar' })
      assert.equal(admissionPluginConfig(config, 'Other'), undefined)
    })
  }

  it('a plugin configured by path gets its file decoded; a path that cannot be opened is the reference\'s fatal error naming it', () => {
    writeFileSync(join(dir, 'quota.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n')
    write('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"ResourceQuota","path":"quota.yaml"},{"name":"EventRateLimit","path":"missing.yaml"}]}')
    const config = readAdmissionConfiguration([], file)
    assert.deepEqual(admissionPluginConfig(config, 'ResourceQuota'), { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration', limitedResources: [{ resource: 'pods' }] })
    const missing = join(dir, 'missing.yaml')
    assert.throws(() => admissionPluginConfig(config, 'EventRateLimit'), (err: Error) => {
      assert.ok(err instanceof AdmissionConfigError)
      assert.equal(err.message, `Couldn't open admission plugin configuration ${missing}: &fs.PathError{Op:"open", Path:${JSON.stringify(missing)}, Err:0x2}`)
      return true
    })
  })

  it('a legacy unversioned file configures the enabled legacy plugins by its own path, and nothing else', () => {
    const legacy = `{
"imagePolicy": {"kubeConfigFile": "/home/user/.kube/config", "allowTTL": 30, "denyTTL": 30, "retryBackoff": 500, "defaultAllow": true},
"podNodeSelectorPluginConfig": {"clusterDefaultNodeSelector": ""}
}`
    write(legacy)
    assert.deepEqual(readAdmissionConfiguration(['ImagePolicyWebhook', 'PodNodeSelector'], file), {
      plugins: [
        { name: 'ImagePolicyWebhook', path: file },
        { name: 'PodNodeSelector', path: file },
      ],
    })
    assert.deepEqual(readAdmissionConfiguration(['NamespaceLifecycle', 'InitialResources'], file), { plugins: [] })
    const config = readAdmissionConfiguration(['PodNodeSelector'], file)
    assert.deepEqual(admissionPluginConfig(config, 'PodNodeSelector'), JSON.parse(legacy))
  })

  it('no file: an empty configuration', () => {
    assert.deepEqual(readAdmissionConfiguration(['NamespaceLifecycle'], undefined), { plugins: [] })
  })

  it('errors: an unreadable file is named; a document of no registered kind is the decoder\'s error', () => {
    const missing = join(dir, 'nope.yaml')
    assert.throws(() => readAdmissionConfiguration([], missing), {
      message: `unable to read admission control configuration from ${JSON.stringify(missing)} [open ${missing}: no such file or directory]`,
    })
    write('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"Foo"}')
    assert.throws(() => readAdmissionConfiguration([], file), { message: 'no kind "Foo" is registered for version "apiserver.config.k8s.io/v1" in scheme' })
    write('{"plugins":[]}')
    assert.throws(() => readAdmissionConfiguration([], file), { message: `Object 'Kind' is missing in '{"plugins":[]}'` })
    write('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: {}\n')
    assert.throws(() => readAdmissionConfiguration([], file), AdmissionConfigError)
  })
})
