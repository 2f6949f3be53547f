// A plugin's actsOn (the resources it may act on): the chain calls it for no other resource,
// so each declaration must cover every request the plugin does anything for. Checked against
// the plugins themselves: on every resource its actsOn leaves out, each registered plugin,
// called directly, neither changes the object, refuses, warns nor annotates.
import assert from 'node:assert/strict'
import { Registry } from 'prom-client'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { type AdmissionPlugin, actsOnOnly, handlesOnly, isMutation, isValidation } from '../../../src/server/admission/interfaces.js'
import { AdmissionMetrics } from '../../../src/server/admission/metrics.js'
import { Plugins } from '../../../src/server/admission/plugins.js'
import { allAdmissionPlugins } from '../../../src/server/admission/register.js'

const OPERATIONS: AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT']

/** Resources of every shape the plugins tell apart: core and grouped, pod-like or not, a custom one. */
const RESOURCES: Array<{ group: string; version: string; resource: string; kind: string }> = [
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret' },
  { group: '', version: 'v1', resource: 'services', kind: 'Service' },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod' },
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace' },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node' },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim' },
  { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume' },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount' },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' },
  { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress' },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass' },
  { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest' },
  { group: 'certificates.k8s.io', version: 'v1beta1', resource: 'clustertrustbundles', kind: 'ClusterTrustBundle' },
  { group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget' },
]

/** An object of the kind with the fields the plugins read (a spec with a container, a node name, a class). */
function objectOf(kind: string, name: string): AdmissionAttributes['object'] {
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name, namespace: 'default', labels: { app: 'x' }, annotations: { a: 'b' }, finalizers: ['f'] },
    spec: { nodeName: 'node-1', priorityClassName: 'high', runtimeClassName: 'rc', containers: [{ name: 'c', image: 'i' }], template: { spec: { containers: [{ name: 'c', image: 'i' }] } }, storageClassName: null, signerName: 'kubernetes.io/kube-apiserver-client' },
  }
}

function attributesFor(operation: AdmissionOperation, r: (typeof RESOURCES)[number]): AdmissionAttributes {
  const object = operation === 'DELETE' ? undefined : objectOf(r.kind, 'x')
  const oldObject = operation === 'CREATE' ? undefined : objectOf(r.kind, 'x')
  return {
    operation,
    kind: { group: r.group, version: r.version, kind: r.kind },
    resource: { group: r.group, version: r.version, resource: r.resource },
    subresource: '',
    namespace: 'default',
    name: 'x',
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    userInfo: { name: 'someone', groups: ['system:authenticated'] },
  }
}

describe('admission: the resources a plugin acts on', () => {
  it('every plugin that names its resources does nothing on any other resource', async () => {
    const plugins = allAdmissionPlugins()
    const init = { stores: () => undefined, config: {}, log: () => {} }
    let checked = 0
    for (const name of plugins.registered()) {
      let plugin: AdmissionPlugin
      try {
        plugin = plugins.newFromPlugins([name], init)['plugins'][0]!.plugin
      } catch {
        continue // a plugin that needs its configuration file to be made
      }
      if (!plugin.actsOn) continue
      for (const r of RESOURCES) {
        if (plugin.actsOn(r.group, r.resource)) continue
        for (const operation of OPERATIONS.filter((o) => plugin.handles(o))) {
          for (const phase of ['admit', 'validate'] as const) {
            if (phase === 'admit' ? !isMutation(plugin) : !isValidation(plugin)) continue
            const attributes = attributesFor(operation, r)
            const before = structuredClone(attributes)
            await (plugin as unknown as Record<typeof phase, (a: AdmissionAttributes) => Promise<void>>)[phase](attributes)
            assert.deepEqual(attributes, before, `${name}.${phase} ${operation} ${r.resource}.${r.group} changed the request`)
            checked++
          }
        }
      }
      plugin.stop?.()
    }
    assert.ok(checked > 100, `only ${checked} calls checked`)
  })

  it('actsOnOnly: resources named as refusals name them', () => {
    const acts = actsOnOnly('pods', 'ingresses.networking.k8s.io')
    assert.equal(acts('', 'pods'), true)
    assert.equal(acts('networking.k8s.io', 'ingresses'), true)
    assert.equal(acts('extensions', 'ingresses'), false)
    assert.equal(acts('', 'ingresses'), false)
    assert.equal(acts('example.com', 'pods'), false)
  })

  it('the chain calls a plugin only for the resources it acts on, and counts it in its metrics for every request it handles', async () => {
    const calls: string[] = []
    const plugins = new Plugins()
    plugins.register('PodsOnly', () => ({
      handles: handlesOnly('CREATE'),
      actsOn: actsOnOnly('pods'),
      admit: async (a: AdmissionAttributes) => void calls.push(`admit ${a.resource.resource}`),
      validate: async (a: AdmissionAttributes) => void calls.push(`validate ${a.resource.resource}`),
    }))
    plugins.register('Every', () => ({ handles: handlesOnly('CREATE'), validate: async (a: AdmissionAttributes) => void calls.push(`every ${a.resource.resource}`) }))
    const registry = new Registry()
    const chain = plugins.newFromPlugins(['PodsOnly', 'Every'], { stores: () => undefined, config: {}, log: () => {}, metrics: new AdmissionMetrics(registry) })
    for (const r of [RESOURCES[0]!, RESOURCES[3]!, RESOURCES[0]!]) {
      const a = attributesFor('CREATE', r)
      await chain.admit(a)
      await chain.validate(a)
    }
    assert.deepEqual(calls, ['every configmaps', 'admit pods', 'validate pods', 'every pods', 'every configmaps'])
    const text = await registry.metrics()
    const count = (name: string, type: string) => new RegExp(`^apiserver_admission_controller_admission_duration_seconds_count\\{name="${name}",type="${type}",operation="CREATE",rejected="false"\\} (\\d+)$`, 'm').exec(text)?.[1]
    // The reference times every plugin that handles the operation, on every request.
    assert.equal(count('PodsOnly', 'admit'), '3')
    assert.equal(count('PodsOnly', 'validate'), '3')
    assert.equal(count('Every', 'validate'), '3')
  })
})
