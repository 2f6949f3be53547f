/**
 * The NamespaceLifecycle admission plugin (the reference's
 * `k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle`): a namespaced create needs its
 * namespace to exist (404 for the namespace), and a namespace being terminated takes no new
 * content (403 with the NamespaceTerminating cause), and the system namespaces (default,
 * kube-system, kube-public) may not be deleted, with the reference's messages.
 */
import { failureStatus } from '../http/status.js'
import { ApiError, errors } from '../api/status-errors.js'
import { type AdmissionAttributes, CREATE, DELETE, nameForRefusal, qualifiedResource } from './attributes.js'
import { type MutationInterface, handlesOnly } from './interfaces.js'
import { cachedNamespace, stopNamespaceCache } from './namespace-cache.js'
import type { PluginInitialization } from './plugins.js'

export const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle'

/** The namespaces that may not be deleted (the reference's immortalNamespaces). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public'])

export class NamespaceLifecycle implements MutationInterface {
  constructor(private readonly init: PluginInitialization) {}

  // The reference's plugin also handles UPDATE, where it only asks that the namespace exist
  // (an object being updated implies it does); this one leaves updates alone.
  readonly handles = handlesOnly(CREATE, DELETE)

  admit(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.operation === DELETE) return this.admitDelete(attributes)
    // Cluster-scoped objects, namespaces themselves included, have no namespace to check.
    if (attributes.namespace === '') return Promise.resolve()
    // As the reference's plugin reads its namespace informer: an active namespace in memory
    // admits without a store read. Anything else (not seen yet, terminating) is looked up
    // live, as the reference does when its cache may lag.
    const seen = cachedNamespace(this.init, attributes.namespace)
    if (seen && !seen.metadata.deletionTimestamp && (seen.status as { phase?: unknown } | undefined)?.phase !== 'Terminating') return Promise.resolve()
    return this.admitLive(attributes)
  }

  /** A deletion: refused for the immortal namespaces; any other deletion is allowed. */
  private admitDelete(attributes: AdmissionAttributes): Promise<void> {
    const { group, kind } = attributes.kind
    if (group === '' && kind === 'Namespace' && IMMORTAL_NAMESPACES.has(attributes.name)) {
      return Promise.reject(errors.forbidden({ group: attributes.resource.group, resource: attributes.resource.resource }, attributes.name, 'this namespace may not be deleted'))
    }
    return Promise.resolve()
  }

  /** Stops the namespace informer (shared with the selectors: namespace-cache.ts). */
  stop(): void {
    stopNamespaceCache(this.init)
  }

  /** The namespace read from the store: missing is a 404, terminating a 403. */
  private async admitLive(attributes: AdmissionAttributes): Promise<void> {
    const stores = this.init.stores()
    if (!stores) return
    const namespace = attributes.namespace
    const kv = await stores.store.get(`/namespaces/${namespace}`)
    if (!kv) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace)
    const ns = stores.lookup('', 'v1', 'namespaces')?.decode(kv.value, kv.modRevision)
    if ((ns?.status as { phase?: unknown } | undefined)?.phase !== 'Terminating') return
    const why = `unable to create new content in namespace ${namespace} because it is being terminated`
    const name = nameForRefusal(attributes)
    const { group, resource } = attributes.resource
    throw new ApiError(
      failureStatus(403, 'Forbidden', `${qualifiedResource(attributes)} "${name}" is forbidden: ${why}`, {
        name,
        ...(group ? { group } : {}),
        kind: resource,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      }),
    )
  }
}
