/**
 * The OwnerReferencesPermissionEnforcement plugin, with the cases of the reference's
 * plugin/pkg/admission/gc gc_admission_test.go (TestGCAdmission, TestBlockOwnerDeletionAdmission),
 * its fake authorizer's users and its messages.
 */
import assert from 'node:assert/strict'
import type { AdmissionAttributes, AdmissionOperation } from '../../../src/server/admission/attributes.js'
import { OwnerReferencesPermissionEnforcement } from '../../../src/server/admission/owner-references-permission-enforcement.js'
import type { KubeObject } from '../../../src/server/api/registry/object.js'
import { ApiError } from '../../../src/server/api/status-errors.js'
import type { Authorizer } from '../../../src/server/authorization/authorizer.js'

/**
 * The reference's fakeAuthorizer: each user but `super` lacks delete and finalizers update on
 * some resources, and the right over every resource (`*` in group `*`).
 */
const fakeAuthorizer: Authorizer = {
  authorize: (a) => {
    const everything = a.apiGroup === '*' && a.resource === '*'
    const denied = (resource?: string) => everything || ((a.verb === 'delete' || (a.verb === 'update' && a.subresource === 'finalizers')) && (resource === undefined || a.resource === resource))
    const no = { decision: 'noOpinion' as const, reason: '' }
    if (a.user.name === 'non-deleter' && denied()) return no
    if (a.user.name === 'non-pod-deleter' && denied('pods')) return no
    if (a.user.name === 'non-rc-deleter' && denied('replicationcontrollers')) return no
    if (a.user.name === 'non-node-deleter' && denied('nodes')) return no
    return { decision: 'allow' }
  },
}

const plugin = new OwnerReferencesPermissionEnforcement({ stores: () => undefined, config: {}, log: () => {}, authorizer: fakeAuthorizer })

function pod(ownerReferences?: Record<string, unknown>[]): KubeObject {
  return { metadata: { name: 'name', namespace: 'ns', ...(ownerReferences ? { ownerReferences } : {}) }, spec: {} }
}

function attributes(user: string, operation: AdmissionOperation, object: KubeObject, oldObject?: KubeObject, resource = 'pods', subresource = ''): AdmissionAttributes {
  return {
    operation,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource },
    subresource,
    namespace: 'ns',
    name: 'name',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
    userInfo: { name: user, groups: [] },
  }
}

const first = { apiVersion: 'v1', kind: 'ReplicationController', name: 'first', uid: 'first' }
const second = { apiVersion: 'v1', kind: 'ReplicationController', name: 'second', uid: 'second' }
const blocking = (ref: Record<string, unknown>) => ({ ...ref, blockOwnerDeletion: true })
const notBlocking = (ref: Record<string, unknown>) => ({ ...ref, blockOwnerDeletion: false })
const CANT_DELETE = `pods "name" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`
const CANT_FINALIZE = `pods "name" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`

describe('admission: OwnerReferencesPermissionEnforcement', () => {
  const cases: { name: string; a: AdmissionAttributes; error?: string }[] = [
    // TestGCAdmission
    { name: 'super-user, create, no objectref change', a: attributes('super', 'CREATE', pod()) },
    { name: 'super-user, create, objectref change', a: attributes('super', 'CREATE', pod([first])) },
    { name: 'non-deleter, create, no objectref change', a: attributes('non-deleter', 'CREATE', pod()) },
    { name: 'non-deleter, create, objectref change', a: attributes('non-deleter', 'CREATE', pod([first])) },
    { name: 'non-pod-deleter, create, no objectref change', a: attributes('non-pod-deleter', 'CREATE', pod()) },
    { name: 'non-pod-deleter, create, objectref change', a: attributes('non-pod-deleter', 'CREATE', pod([first])) },
    { name: 'super-user, update, no objectref change', a: attributes('super', 'UPDATE', pod(), pod()) },
    { name: 'super-user, update, no objectref change two', a: attributes('super', 'UPDATE', pod([first]), pod([first])) },
    { name: 'super-user, update, objectref change', a: attributes('super', 'UPDATE', pod([first]), pod()) },
    { name: 'non-deleter, update, no objectref change', a: attributes('non-deleter', 'UPDATE', pod(), pod()) },
    { name: 'non-deleter, update, no objectref change two', a: attributes('non-deleter', 'UPDATE', pod([first]), pod([first])) },
    { name: 'non-deleter, update, objectref change', a: attributes('non-deleter', 'UPDATE', pod([first]), pod()), error: CANT_DELETE },
    { name: 'non-deleter, update, objectref change two', a: attributes('non-deleter', 'UPDATE', pod([first, second]), pod([first])), error: CANT_DELETE },
    { name: 'non-pod-deleter, update, no objectref change', a: attributes('non-pod-deleter', 'UPDATE', pod(), pod()) },
    { name: 'non-pod-deleter, update status, objectref change', a: attributes('non-pod-deleter', 'UPDATE', pod([first]), pod(), 'pods', 'status') },
    { name: 'non-pod-deleter, update, objectref change', a: attributes('non-pod-deleter', 'UPDATE', pod([first]), pod()), error: CANT_DELETE },
    { name: 'non-pod-deleter, update, objectref change on a non-pod resource', a: attributes('non-pod-deleter', 'UPDATE', pod([first]), pod(), 'services') },
    // TestBlockOwnerDeletionAdmission
    { name: 'super-user, create, objectref with blockOwnerDeletion', a: attributes('super', 'CREATE', pod([blocking(first)])) },
    { name: 'super-user, create, blockOwnerDeletion on an unknown kind (may finalize anything)', a: attributes('super', 'CREATE', pod([blocking({ apiVersion: 'invalid/version', kind: 'Invalid', name: 'x', uid: 'x' })])) },
    { name: 'non-rc-deleter, create, no objectref change', a: attributes('non-rc-deleter', 'CREATE', pod()) },
    { name: 'non-rc-deleter, create, objectref change without blockOwnerDeletion', a: attributes('non-rc-deleter', 'CREATE', pod([first])) },
    { name: 'non-rc-deleter, create, objectref change with blockOwnerDeletion=false', a: attributes('non-rc-deleter', 'CREATE', pod([notBlocking(first)])) },
    { name: 'non-rc-deleter, create, objectref change with blockOwnerDeletion=true', a: attributes('non-rc-deleter', 'CREATE', pod([blocking(first)])), error: CANT_FINALIZE },
    { name: 'non-node-deleter, create, objectref change with blockOwnerDeletion=true', a: attributes('non-node-deleter', 'CREATE', pod([blocking({ apiVersion: 'v1', kind: 'Node', name: 'node', uid: 'node' })])), error: CANT_FINALIZE },
    { name: 'non-rc-deleter, update, no objectref change', a: attributes('non-rc-deleter', 'UPDATE', pod([first]), pod([first])) },
    { name: 'non-rc-deleter, update, change blockOwnerDeletion from nil to true', a: attributes('non-rc-deleter', 'UPDATE', pod([blocking(first)]), pod([first])), error: CANT_FINALIZE },
    { name: 'non-rc-deleter, update, change blockOwnerDeletion from false to true', a: attributes('non-rc-deleter', 'UPDATE', pod([blocking(first)]), pod([notBlocking(first)])), error: CANT_FINALIZE },
    { name: 'non-rc-deleter, update, change blockOwnerDeletion from true to false', a: attributes('non-rc-deleter', 'UPDATE', pod([notBlocking(first)]), pod([blocking(first)])) },
    { name: 'non-rc-deleter, update, add new objectref with blockOwnerDeletion=true', a: attributes('non-rc-deleter', 'UPDATE', pod([blocking(first), blocking(second)]), pod([blocking(first)])), error: CANT_FINALIZE },
    { name: 'non-rc-deleter, update, remove an objectref with blockOwnerDeletion=true', a: attributes('non-rc-deleter', 'UPDATE', pod([blocking(first)]), pod([blocking(first), blocking(second)])) },
    {
      name: 'invalid owner reference apiVersion and kind',
      a: attributes('non-rc-deleter', 'CREATE', pod([blocking({ apiVersion: 'invalid/version', kind: 'Invalid', name: 'x', uid: 'x' })])),
      error: 'pods "name" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion invalid/version Kind Invalid: no matches for kind "Invalid" in version "invalid/version"',
    },
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const attempt = plugin.validate(c.a)
      if (c.error === undefined) await attempt
      else await assert.rejects(attempt, (err: unknown) => err instanceof ApiError && err.code === 403 && err.message === c.error)
    })
  }
})
