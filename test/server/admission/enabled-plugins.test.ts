import assert from 'node:assert/strict'
import { ADMISSION_PLUGINS, DEFAULT_ADMISSION_PLUGINS } from '../../../src/core/options/enums.js'
import { ALL_ORDERED_PLUGINS, DEFAULT_OFF_PLUGINS, enabledPluginNames } from '../../../src/server/admission/enabled-plugins.js'

/** The default-on plugins in the reference's running order (AllOrderedPlugins minus DefaultOffAdmissionPlugins). */
const DEFAULT_ORDER = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodTopologyLabels',
  'NodeDeclaredFeatureValidator',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]

describe('admission: the enabled plugins', () => {
  it('orders every known plugin once, the policies, webhooks, quota and AlwaysDeny last', () => {
    assert.deepEqual([...ALL_ORDERED_PLUGINS].sort(), [...ADMISSION_PLUGINS].sort())
    assert.equal(new Set(ALL_ORDERED_PLUGINS).size, ALL_ORDERED_PLUGINS.length)
    assert.deepEqual(ALL_ORDERED_PLUGINS.slice(-6), ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny'])
    assert.deepEqual(ALL_ORDERED_PLUGINS.slice(0, 4), ['AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists'])
  })

  it('with no option: the default-on plugins, in the running order', () => {
    assert.deepEqual(enabledPluginNames({ enable: [], disable: [] }), DEFAULT_ORDER)
    assert.deepEqual(new Set(DEFAULT_ORDER), new Set(DEFAULT_ADMISSION_PLUGINS))
    for (const name of DEFAULT_ORDER) assert.ok(!DEFAULT_OFF_PLUGINS.has(name), name)
    assert.equal(DEFAULT_OFF_PLUGINS.size, ALL_ORDERED_PLUGINS.length - DEFAULT_ORDER.length)
  })

  it('--enable-admission-plugins adds to the defaults in the running order, whatever the command-line order', () => {
    const enabled = enabledPluginNames({ enable: ['AlwaysDeny', 'NodeRestriction', 'AlwaysPullImages'], disable: [] })
    assert.deepEqual(enabled, [
      'NamespaceLifecycle',
      'LimitRanger',
      'ServiceAccount',
      'NodeRestriction',
      'TaintNodesByCondition',
      'AlwaysPullImages',
      ...DEFAULT_ORDER.slice(4),
      'AlwaysDeny',
    ])
    assert.deepEqual(enabledPluginNames({ enable: ['AlwaysPullImages', 'AlwaysDeny', 'NodeRestriction'], disable: [] }), enabled)
  })

  it('--disable-admission-plugins takes default-on plugins away; naming a default-off one changes nothing', () => {
    assert.deepEqual(
      enabledPluginNames({ enable: [], disable: ['ServiceAccount', 'NamespaceLifecycle', 'AlwaysDeny'] }),
      DEFAULT_ORDER.filter((n) => n !== 'ServiceAccount' && n !== 'NamespaceLifecycle'),
    )
  })

  it('both: enabled added and disabled removed', () => {
    assert.deepEqual(
      enabledPluginNames({ enable: ['NamespaceExists'], disable: ['ResourceQuota', 'PodSecurity'] }),
      ['NamespaceLifecycle', 'NamespaceExists', ...DEFAULT_ORDER.slice(1).filter((n) => n !== 'ResourceQuota' && n !== 'PodSecurity')],
    )
  })

  it('the deprecated --admission-control is the whole set, in the running order', () => {
    assert.deepEqual(enabledPluginNames({ enable: [], disable: [], admissionControl: ['ResourceQuota', 'AlwaysAdmit', 'NamespaceLifecycle'] }), [
      'AlwaysAdmit',
      'NamespaceLifecycle',
      'ResourceQuota',
    ])
    // Given empty: nothing runs.
    assert.deepEqual(enabledPluginNames({ enable: [], disable: [], admissionControl: [] }), [])
  })
})
