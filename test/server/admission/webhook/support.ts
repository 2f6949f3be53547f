/**
 * A plugin initialization for the webhook plugins' tests: the stored webhook configurations
 * and namespaces are plain lists (the stores' list and get), changed between requests.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../../src/server/admission/attributes.js'
import type { PluginInitialization } from '../../../../src/server/admission/plugins.js'
import type { KubeObject } from '../../../../src/server/api/registry/object.js'
import { errors } from '../../../../src/server/api/status-errors.js'

type Obj = Record<string, any>

export interface FakeStores {
  init: PluginInitialization
  mutating: Obj[]
  validating: Obj[]
  namespaces: Obj[]
  services: Obj[]
  logs: string[]
}

export function fakeStores(): FakeStores {
  const self: FakeStores = { mutating: [], validating: [], namespaces: [], services: [], logs: [], init: undefined as unknown as PluginInitialization }
  const listOf = (items: () => Obj[]) => ({
    list: async () => ({ items: items() as KubeObject[], resourceVersion: '1' }),
    get: async (_ns: string | undefined, name: string) => {
      const found = items().find((o) => o.metadata?.name === name)
      if (!found) throw errors.notFound({ group: '', resource: 'namespaces' }, name)
      return found as KubeObject
    },
  })
  const stores = {
    store: undefined as never,
    lookup(group: string, _version: string, resource: string) {
      if (group === 'admissionregistration.k8s.io' && resource === 'mutatingwebhookconfigurations') return listOf(() => self.mutating) as never
      if (group === 'admissionregistration.k8s.io' && resource === 'validatingwebhookconfigurations') return listOf(() => self.validating) as never
      if (group === '' && resource === 'namespaces') return listOf(() => self.namespaces) as never
      if (group === '' && resource === 'services') return listOf(() => self.services) as never
      return undefined
    },
  }
  self.init = { stores: () => stores, config: {}, log: (_level, message) => self.logs.push(message) }
  return self
}

/** A configuration with one webhook; `webhook` overrides the defaults the API would set. */
export function configuration(name: string, webhook: Obj): Obj {
  return {
    metadata: { name },
    webhooks: [
      {
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
        namespaceSelector: {},
        objectSelector: {},
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }],
        ...webhook,
      },
    ],
  }
}

/** Asserts that `actual` has every field of `expected`, deeply equal. */
export function assertIncludes(actual: unknown, expected: Record<string, unknown>): void {
  assert.ok(actual !== null && typeof actual === 'object', `expected an object, got ${JSON.stringify(actual)}`)
  const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, (actual as Record<string, unknown>)[k]]))
  assert.deepEqual(picked, expected)
}

/** A pod's CREATE by alice in `default`, as the handlers hand it to admission. */
export function podAttributes(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: '',
    namespace: 'default',
    name: 'web',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } }, spec: {} },
    dryRun: false,
    options: { fieldManager: 'kubectl-client-side-apply' },
    userInfo: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] },
    ...over,
  }
}
