/**
 * POST of a Binding (`pods/<name>/binding`, or the `bindings` collection of a namespace): the
 * scheduler's write that assigns a pod to a node, as the reference's BindingREST. The pod gets
 * spec.nodeName, the binding's annotations and labels (PodTopologyLabels puts its node's
 * topology labels there) and a PodScheduled condition; a pod already assigned, or being
 * deleted, is a 409. The Binding goes through admission as the create it is. The answer is a
 * Success Status with code 201.
 */
import { readBody, decodeRequestBody, writeObject } from '../negotiation.js'
import type { AdmissionHook } from '../registry/admission-hook.js'
import type { GenericStore } from '../registry/generic-store.js'
import { type KubeObject, isPlainObject, nowTimestamp } from '../registry/object.js'
import { errors, type Cause } from '../status-errors.js'
import { type Scope, isDryRun, responseOutput } from './scope.js'
import { admitSubresourceCreate } from './subresource-admission.js'

const BINDING = { group: '', kind: 'Binding' }

/** The Binding of the request body, checked against the URL (kind, namespace, name). */
async function readBinding(scope: Scope): Promise<KubeObject> {
  const body = await decodeRequestBody(scope.req, await readBody(scope.req), { kind: 'Binding' })
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  const binding = body as KubeObject
  if ((binding.kind !== undefined && binding.kind !== 'Binding') || (binding.apiVersion !== undefined && binding.apiVersion !== 'v1')) {
    throw errors.badRequest(
      `${String(binding.kind ?? '')} in version ${JSON.stringify(String(binding.apiVersion ?? '').split('/').pop())} cannot be handled as a Binding: no kind "${String(binding.kind ?? '')}" is registered for version "${String(binding.apiVersion ?? '')}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`,
    )
  }
  if (!isPlainObject(binding.metadata)) binding.metadata = {}
  const ns = binding.metadata.namespace
  if (ns !== undefined && ns !== '' && ns !== scope.namespace) throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request')
  binding.metadata.namespace = scope.namespace
  return binding
}

/** ValidatePodBinding. */
function validateBinding(binding: KubeObject): Cause[] {
  const target = isPlainObject(binding.target) ? binding.target : {}
  const causes: Cause[] = []
  if (typeof target.kind === 'string' && target.kind !== '' && target.kind !== 'Node') {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(target.kind)}: supported values: "Node"`, field: 'target.kind' })
  }
  if (typeof target.name !== 'string' || target.name === '') causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' })
  return causes
}

/**
 * BindingREST's assignPod: the pod gets spec.nodeName, the binding's annotations and labels and
 * the PodScheduled condition; a pod being deleted or already assigned is a 409. Shared by the
 * handler and the in-process scheduler, which binds through the same path.
 */
export async function assignPod(store: GenericStore, namespace: string | undefined, name: string, binding: KubeObject, dryRun = false): Promise<KubeObject> {
  const node = String((binding.target as { name: string }).name)
  const pods = { group: '', resource: 'pods' }
  return store.rewrite(
    namespace,
    name,
    (pod) => {
      if (pod.metadata.deletionTimestamp) throw errors.conflict(pods, name, `pod ${name} is being deleted, cannot be assigned to a host`)
      const spec = isPlainObject(pod.spec) ? pod.spec : {}
      if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw errors.conflict(pods, name, `pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`)
      spec.nodeName = node
      pod.spec = spec
      const annotations = binding.metadata.annotations
      if (annotations && Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations }
      // The binding's labels over the pod's, as the reference's BindingREST copies them.
      const labels = binding.metadata.labels
      if (labels && Object.keys(labels).length > 0) pod.metadata.labels = { ...(pod.metadata.labels ?? {}), ...labels }
      const status = isPlainObject(pod.status) ? pod.status : {}
      const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !(isPlainObject(c) && c.type === 'PodScheduled'))
      conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp() })
      status.conditions = conditions
      pod.status = status
    },
    dryRun,
  )
}

/** `admission`: the server's chain; the `bindings` collection is admitted as its own resource, `pods/binding` as the pods' subresource. */
export async function podBindingHandler(scope: Scope, admission?: AdmissionHook): Promise<void> {
  const output = responseOutput(scope, false)
  const binding = await readBinding(scope)
  const name = binding.metadata.name ?? ''
  if (scope.name !== undefined && name !== scope.name) throw errors.badRequest('name in URL does not match name in Binding object')
  const causes = validateBinding(binding)
  if (causes.length > 0) throw errors.invalid(BINDING.group, BINDING.kind, name, causes)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  await admitSubresourceCreate(admission, scope, {
    kind: { group: '', version: 'v1', kind: 'Binding' },
    resource: scope.name !== undefined ? { group: '', version: 'v1', resource: 'pods' } : { group: '', version: 'v1', resource: 'bindings' },
    subresource: scope.name !== undefined ? 'binding' : '',
    namespace: scope.namespace ?? '',
    name,
    object: binding,
    dryRun,
  })
  await assignPod(scope.store, scope.namespace, name, binding, dryRun)
  await writeObject(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, output)
}
