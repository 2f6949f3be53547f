/**
 * Admission of the creates the generic store does not write itself: a Binding (`pods/binding`,
 * the `bindings` collection), an Eviction (`pods/eviction`) and a TokenRequest
 * (`serviceaccounts/token`). The reference's create handler admits them as any create, with
 * the subresource set and the posted object (mutating plugins first, then validating ones),
 * before the subresource's REST storage acts on them.
 */
import type { AdmissionAttributes, AdmissionHook } from '../registry/admission-hook.js'
import type { KubeObject } from '../registry/object.js'
import { admissionRequest, writeOptions } from './admission-request.js'
import type { Scope } from './scope.js'

export interface SubresourceCreate {
  /** The kind posted, e.g. {group: 'policy', version: 'v1', kind: 'Eviction'}. */
  kind: { group: string; version: string; kind: string }
  /** The parent resource, e.g. {group: '', version: 'v1', resource: 'pods'}. */
  resource: { group: string; version: string; resource: string }
  subresource: string
  namespace: string
  name: string
  object: KubeObject
  dryRun: boolean
}

/** Runs `hook` (absent: nothing is admitted) on the create; mutating plugins may change `object`. */
export async function admitSubresourceCreate(hook: AdmissionHook | undefined, scope: Pick<Scope, 'ctx' | 'res' | 'query'>, create: SubresourceCreate): Promise<void> {
  if (!hook) return
  const request = admissionRequest(scope, writeOptions(scope, 'CreateOptions'))
  const attributes: AdmissionAttributes = {
    operation: 'CREATE',
    ...create,
    ...(request.options !== undefined ? { options: request.options } : {}),
    ...(request.userInfo ? { userInfo: request.userInfo } : {}),
  }
  for (const phase of ['admit', 'validate'] as const) {
    try {
      await hook[phase](attributes)
    } finally {
      request.record?.(attributes)
    }
  }
}
