/**
 * A registry with the policies, bindings and params stored as the API stores them (defaulted
 * and validated), and the ValidatingAdmissionPolicy plugin over it, for the policy table tests.
 */
import type { AdmissionAttributes } from '../../../../src/server/admission/attributes.js'
import type { PluginInitialization } from '../../../../src/server/admission/plugins.js'
import { ValidatingAdmissionPolicy } from '../../../../src/server/admission/policy/validating/dispatcher.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { type TestRegistry, openTestRegistry } from '../../api/support.js'

type Obj = Record<string, any>

export interface PolicyWorld {
  registry: TestRegistry
  logs: string[]
  init: PluginInitialization
  plugin(): ValidatingAdmissionPolicy
  policy(name: string, spec: Obj): Promise<KubeObject>
  binding(name: string, spec: Obj): Promise<KubeObject>
  create(group: string, version: string, resource: string, object: Obj): Promise<KubeObject>
  close(): Promise<void>
}

const GROUP = 'admissionregistration.k8s.io'

export async function openPolicyWorld(namespaces: readonly string[] = ['default']): Promise<PolicyWorld> {
  const registry = await openTestRegistry('vap-', namespaces)
  const logs: string[] = []
  const init: PluginInitialization = { stores: () => registry.registry, config: {}, log: (_level, message) => logs.push(message) }
  const create = async (group: string, version: string, resource: string, object: Obj) => {
    const store = registry.registry.lookup(group, version, resource)
    if (!store) throw new Error(`no store for ${group}/${version}/${resource}`)
    return store.create(object as KubeObject)
  }
  return {
    registry,
    logs,
    init,
    plugin: () => new ValidatingAdmissionPolicy(init),
    policy: (name, spec) => create(GROUP, 'v1', 'validatingadmissionpolicies', { apiVersion: `${GROUP}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec }),
    binding: (name, spec) => create(GROUP, 'v1', 'validatingadmissionpolicybindings', { apiVersion: `${GROUP}/v1`, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec }),
    create,
    close: () => registry.close(),
  }
}

/** matchConstraints for CREATE and UPDATE of configmaps. */
export const CONFIGMAPS = {
  resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
}

/** A configmap's create, as the handlers hand it to admission. */
export function configMapAttributes(name: string, data: Obj = {}, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const namespace = over.namespace ?? 'default'
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace,
    name,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'web' } }, data } as KubeObject,
    dryRun: false,
    userInfo: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
    ...over,
  }
}
