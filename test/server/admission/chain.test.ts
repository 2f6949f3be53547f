import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { addAnnotation, addWarning, nameForRefusal, qualifiedResource } from '../../../src/server/admission/attributes.js'
import { admissionFromConfig } from '../../../src/server/admission/from-config.js'
import { type AdmissionPlugin, handlesOnly } from '../../../src/server/admission/interfaces.js'
import { Plugins } from '../../../src/server/admission/plugins.js'
import { ALL_ORDERED_PLUGINS } from '../../../src/server/admission/enabled-plugins.js'
import { allAdmissionPlugins } from '../../../src/server/admission/register.js'

const attributes = (operation: AdmissionOperation, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation,
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'default',
  name: 'x',
  object: { metadata: { name: 'x', namespace: 'default' } },
  dryRun: false,
  ...over,
})

const init = { stores: () => undefined, config: {}, log: () => {} }

/** A plugin that records what it was asked into `calls`. */
function recording(calls: string[], name: string, kind: { mutating?: boolean; validating?: boolean }, operations: AdmissionOperation[] = ['CREATE']): AdmissionPlugin {
  return {
    handles: handlesOnly(...operations),
    ...(kind.mutating ? { admit: async (a: AdmissionAttributes) => void calls.push(`${name}.admit ${a.operation}`) } : {}),
    ...(kind.validating ? { validate: async (a: AdmissionAttributes) => void calls.push(`${name}.validate ${a.operation}`) } : {}),
    stop: () => void calls.push(`${name}.stop`),
  }
}

describe('admission: the plugin registry and the chain', () => {
  it('registers factories by name, lists them sorted, and refuses a name twice', () => {
    const plugins = new Plugins()
    plugins.register('B', () => ({ handles: () => true }))
    plugins.register('A', () => ({ handles: () => true }))
    assert.deepEqual(plugins.registered(), ['A', 'B'])
    assert.ok(plugins.has('A') && !plugins.has('C'))
    assert.throws(() => plugins.register('A', () => ({ handles: () => true })), /Admission plugin "A" was registered twice/)
    assert.throws(() => plugins.newFromPlugins(['A', 'C'], init), /unknown admission plugin: C/)
  })

  it('hands every factory the initialization and its own configuration', () => {
    const plugins = new Plugins()
    const seen: unknown[] = []
    plugins.register('A', (i, config) => {
      seen.push(i, config)
      return { handles: () => true }
    })
    plugins.newFromPlugins(['A'], init, (name) => ({ for: name }))
    assert.deepEqual(seen, [init, { for: 'A' }])
  })

  it('runs the mutating plugins in order, then the validating ones, each only for the operations it handles', async () => {
    const calls: string[] = []
    const plugins = new Plugins()
    plugins.register('V1', () => recording(calls, 'V1', { validating: true }))
    plugins.register('M1', () => recording(calls, 'M1', { mutating: true }, ['CREATE', 'UPDATE']))
    plugins.register('Both', () => recording(calls, 'Both', { mutating: true, validating: true }))
    plugins.register('M2', () => recording(calls, 'M2', { mutating: true }, ['DELETE']))
    const chain = plugins.newFromPlugins(['V1', 'M1', 'Both', 'M2'], init)
    assert.deepEqual(chain.mutatingNames, ['M1', 'Both', 'M2'])
    assert.deepEqual(chain.validatingNames, ['V1', 'Both'])
    await chain.admit(attributes('CREATE'))
    await chain.validate(attributes('CREATE'))
    assert.deepEqual(calls, ['M1.admit CREATE', 'Both.admit CREATE', 'V1.validate CREATE', 'Both.validate CREATE'])
    calls.length = 0
    await chain.admit(attributes('UPDATE'))
    await chain.validate(attributes('UPDATE'))
    assert.deepEqual(calls, ['M1.admit UPDATE'])
    calls.length = 0
    chain.stop()
    assert.deepEqual(calls, ['V1.stop', 'M1.stop', 'Both.stop', 'M2.stop'])
  })

  it('stops at the first refusal', async () => {
    const calls: string[] = []
    const plugins = new Plugins()
    plugins.register('Deny', () => ({ handles: () => true, admit: async () => Promise.reject(new Error('denied')) }))
    plugins.register('V', () => recording(calls, 'V', { validating: true }))
    const chain = plugins.newFromPlugins(['Deny', 'V'], init)
    await assert.rejects(chain.admit(attributes('CREATE')), /denied/)
    assert.deepEqual(calls, [])
  })

  it('from the configuration: the enabled plugins this server has; the others named once when the command line names plugins', () => {
    const warnings: string[] = []
    const log = { v: () => {}, warning: (m: string) => void warnings.push(m) }
    const byDefault = admissionFromConfig({ config: {}, stores: () => undefined, log })
    // kube-apiserver 1.35 logs "Loaded 13 mutating admission controller(s) successfully in the following order:
    // NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,Priority,DefaultTolerationSeconds,DefaultStorageClass,
    // StorageObjectInUseProtection,RuntimeClass,DefaultIngressClass,PodTopologyLabels,MutatingAdmissionPolicy,MutatingAdmissionWebhook"
    // (PodTopologyLabels after DenyServiceExternalIPs in pkg/kubeapiserver/options/plugins.go's AllOrderedPlugins)
    // and the validating ones "LimitRanger,ServiceAccount,PodSecurity,Priority,PersistentVolumeClaimResize,RuntimeClass,
    // CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,CertificateSubjectRestriction,NodeDeclaredFeatureValidator,
    // ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota" (NodeDeclaredFeatureValidator is default-on in
    // plugins.go's DefaultOffAdmissionPlugins, inert while its gate is off).
    const referenceMutating = 'NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,Priority,DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,RuntimeClass,DefaultIngressClass,PodTopologyLabels,MutatingAdmissionPolicy,MutatingAdmissionWebhook'.split(',')
    const referenceValidating = 'LimitRanger,ServiceAccount,PodSecurity,Priority,PersistentVolumeClaimResize,RuntimeClass,CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,CertificateSubjectRestriction,NodeDeclaredFeatureValidator,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota'.split(',')
    assert.deepEqual(byDefault.mutatingNames, referenceMutating)
    assert.deepEqual(byDefault.validatingNames, referenceValidating)
    assert.deepEqual(warnings, [])

    const config = { admissionPlugins: { enable: ['AlwaysPullImages'], disable: [], given: true } }
    // AllOrderedPlugins puts AlwaysPullImages after TaintNodesByCondition.
    const withPull = [...referenceMutating.slice(0, 4), 'AlwaysPullImages', ...referenceMutating.slice(4)]
    assert.deepEqual(admissionFromConfig({ config, stores: () => undefined, log }).mutatingNames, withPull)
    assert.deepEqual(warnings, [])

    const off = admissionFromConfig({ config: { admissionPlugins: { enable: [], disable: ['NamespaceLifecycle'], given: true } }, stores: () => undefined, log })
    assert.deepEqual(off.mutatingNames, referenceMutating.slice(1))
    const only = admissionFromConfig({ config: { admissionPlugins: { enable: [], disable: [], admissionControl: ['NamespaceLifecycle'], given: true } }, stores: () => undefined, log })
    assert.deepEqual(only.mutatingNames, ['NamespaceLifecycle'])
    assert.deepEqual(warnings, [])
    // Every name the reference allows is built: no enabled plugin is ever left out.
    assert.deepEqual(allAdmissionPlugins().registered(), [...ALL_ORDERED_PLUGINS].sort())
    assert.deepEqual(allAdmissionPlugins().registered(), ['AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'ClusterTrustBundleAttest', 'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'DenyServiceExternalIPs', 'EventRateLimit', 'ExtendedResourceToleration', 'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'LimitRanger', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'NamespaceAutoProvision', 'NamespaceExists', 'NamespaceLifecycle', 'NodeDeclaredFeatureValidator', 'NodeRestriction', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'PodNodeSelector', 'PodSecurity', 'PodTolerationRestriction', 'PodTopologyLabels', 'Priority', 'ResourceQuota', 'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection', 'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'])
  })

  it('attributes: the refusal name and resource, annotations and warnings', () => {
    assert.equal(nameForRefusal(attributes('CREATE')), 'x')
    assert.equal(nameForRefusal(attributes('CREATE', { name: '', object: { metadata: { name: 'gen-abcde', generateName: 'gen-' } } })), 'gen-')
    assert.equal(nameForRefusal(attributes('CREATE', { name: '', object: { metadata: {} } })), 'Unknown')
    assert.equal(qualifiedResource(attributes('CREATE')), 'configmaps')
    assert.equal(qualifiedResource(attributes('CREATE', { resource: { group: 'apps', version: 'v1', resource: 'deployments' } })), 'deployments.apps')
    const a = attributes('CREATE')
    addAnnotation(a, 'example.admission.k8s.io/decision', 'allow')
    addAnnotation(a, 'example.admission.k8s.io/decision', 'allow')
    assert.throws(() => addAnnotation(a, 'example.admission.k8s.io/decision', 'deny'), /not allowd to be overwritten/)
    assert.throws(() => addAnnotation(a, 'no-slash', 'v'), /annotation key has invalid format/)
    addWarning(a, 'be careful')
    assert.deepEqual(a.annotations, { 'example.admission.k8s.io/decision': 'allow' })
    assert.deepEqual(a.warnings, ['be careful'])
  })
})
