/**
 * The DefaultBinder: a Binding posted for the pod (`pods/<name>/binding`) as the scheduler's
 * client does, through the same admission (as `system:kube-scheduler`) and the same
 * assignment as the API's handler (BindingREST).
 */
import { assignPod } from '../api/handlers/pod-binding.js'
import type { AdmissionAttributes } from '../api/registry/admission-hook.js'
import type { Registry } from '../api/registry/registry.js'
import type { UserInfo } from '../http/types.js'
import type { Pod } from './objects.js'

/** Who the scheduler is to admission and RBAC (its kubeconfig's user). */
export const SCHEDULER_USER: UserInfo = { name: 'system:kube-scheduler', groups: ['system:authenticated'] }

export async function bindPod(registry: Registry, pod: Pod, nodeName: string): Promise<void> {
  const pods = registry.lookup('', 'v1', 'pods')!
  const namespace = pod.metadata.namespace ?? ''
  const name = pod.metadata.name ?? ''
  const binding = {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace, uid: pod.metadata.uid },
    target: { kind: 'Node', name: nodeName },
  }
  const admission = registry.options.admission
  if (admission) {
    const attributes: AdmissionAttributes = {
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Binding' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subresource: 'binding',
      namespace,
      name,
      object: binding,
      dryRun: false,
      userInfo: SCHEDULER_USER,
    }
    await admission.admit(attributes)
    await admission.validate(attributes)
  }
  await assignPod(pods, namespace, name, binding)
}
