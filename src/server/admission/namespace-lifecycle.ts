/**
 * The NamespaceLifecycle admission plugin (the reference's
 * `plugin/pkg/admission/namespace/lifecycle`): a namespaced create needs its namespace to
 * exist (404 for the namespace), and a namespace being terminated takes no new content (403
 * with the NamespaceTerminating cause), with the reference's messages. The registry runs it
 * for every namespaced create, after defaulting and validation and before the write.
 */
import { failureStatus } from '../http/status.js'
import type { GenericStore } from '../api/registry/generic-store.js'
import type { Strategy } from '../api/registry/strategy.js'
import { ApiError, errors } from '../api/status-errors.js'
import type { Store } from '../store/types.js'

export interface NamespaceLifecycleDeps {
  store: Store
  /** The namespaces' generic store, to decode what is stored. */
  namespaces(): GenericStore | undefined
}

export async function admitNamespaceLifecycle(deps: NamespaceLifecycleDeps, strategy: Strategy, namespace: string, name: string): Promise<void> {
  const kv = await deps.store.get(`/namespaces/${namespace}`)
  if (!kv) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace)
  const ns = deps.namespaces()?.decode(kv.value, kv.modRevision)
  if ((ns?.status as { phase?: unknown } | undefined)?.phase !== 'Terminating') return
  const why = `unable to create new content in namespace ${namespace} because it is being terminated`
  const qualifiedName = strategy.group === '' ? strategy.resource : `${strategy.resource}.${strategy.group}`
  throw new ApiError(
    failureStatus(403, 'Forbidden', `${qualifiedName} "${name}" is forbidden: ${why}`, {
      name,
      ...(strategy.group ? { group: strategy.group } : {}),
      kind: strategy.resource,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    }),
  )
}
