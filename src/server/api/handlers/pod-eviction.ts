/**
 * POST of an Eviction to `pods/<name>/eviction`, as the reference's EvictionREST: a pod that
 * no PodDisruptionBudget covers, or that cannot count against one (not Running, or already
 * being deleted), is deleted; a pod covered by one budget is deleted only when the budget
 * allows a disruption (which it then takes), otherwise 429 with the reference's text. More
 * than one budget is a 500, as there.
 *
 * Nothing here runs the reference's disruption controller: a budget whose status has not been
 * computed for its generation gets it computed now from the pods it selects (healthy: Running
 * and Ready), so that an eviction gets an answer instead of "still being processed".
 */
import { matchesLabelSelector } from '../../http/selectors.js'
import { readBody, decodeRequestBody, writeObject } from '../negotiation.js'
import type { AdmissionHook } from '../registry/admission-hook.js'
import type { GenericStore } from '../registry/generic-store.js'
import { type KubeObject, isPlainObject, nowTimestamp } from '../registry/object.js'
import { ApiError, errors } from '../status-errors.js'
import { failureStatus } from '../../http/status.js'
import { type Scope, isDryRun, responseOutput } from './scope.js'
import { admitSubresourceCreate } from './subresource-admission.js'

const EVICTION_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {})

async function readEviction(scope: Scope): Promise<KubeObject> {
  const body = await decodeRequestBody(scope.req, await readBody(scope.req), { kind: 'Eviction' })
  if (!isPlainObject(body)) throw errors.badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`)
  const eviction = body as KubeObject
  const versions = ['policy/v1', 'policy/v1beta1']
  if ((eviction.kind !== undefined && eviction.kind !== 'Eviction') || (eviction.apiVersion !== undefined && !versions.includes(String(eviction.apiVersion)))) {
    throw errors.badRequest(`${String(eviction.kind ?? '')} in version ${JSON.stringify(String(eviction.apiVersion ?? '').split('/').pop())} cannot be handled as a Eviction`)
  }
  if (!isPlainObject(eviction.metadata)) eviction.metadata = {}
  return eviction
}

function tooManyRequests(cause: string): ApiError {
  return new ApiError(failureStatus(429, 'TooManyRequests', EVICTION_MESSAGE, { causes: [{ reason: 'DisruptionBudget', message: cause, field: '' }] }))
}

function isReady(pod: KubeObject): boolean {
  const status = obj(pod.status)
  if (status.phase !== 'Running') return false
  return (Array.isArray(status.conditions) ? status.conditions : []).some((c) => isPlainObject(c) && c.type === 'Ready' && c.status === 'True')
}

/** An int-or-percent of `total`, rounded up as the disruption controller does. */
function scaled(value: unknown, total: number): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && /^\d+%$/.test(value)) return Math.ceil((Number(value.slice(0, -1)) * total) / 100)
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value)
  return undefined
}

/** The budget's status as the disruption controller would write it for these pods. */
function computedStatus(pdb: KubeObject, pods: readonly KubeObject[]): Obj {
  const spec = obj(pdb.spec)
  const expected = pods.length
  const healthy = pods.filter(isReady).length
  let desired = 0
  if (spec.minAvailable !== undefined) desired = scaled(spec.minAvailable, expected) ?? expected
  else if (spec.maxUnavailable !== undefined) desired = Math.max(0, expected - (scaled(spec.maxUnavailable, expected) ?? 0))
  const status = obj(structuredClone(pdb.status ?? {}))
  return {
    ...status,
    observedGeneration: pdb.metadata.generation ?? 1,
    disruptionsAllowed: Math.max(0, healthy - desired),
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
  }
}

/** `admission`: the server's chain, which admits the Eviction as a create of `pods/eviction`. */
export async function podEvictionHandler(scope: Scope, budgets: GenericStore | undefined, admission?: AdmissionHook): Promise<void> {
  const output = responseOutput(scope, false)
  const eviction = await readEviction(scope)
  const name = scope.name!
  const [group, version] = String(eviction.apiVersion ?? 'policy/v1').split('/')
  await admitSubresourceCreate(admission, scope, {
    kind: { group: group ?? 'policy', version: version ?? 'v1', kind: 'Eviction' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource: 'eviction',
    namespace: scope.namespace ?? '',
    name,
    object: eviction,
    dryRun: isDryRun(scope.query.getAll('dryRun')),
  })
  if (eviction.metadata.name !== undefined && eviction.metadata.name !== name) throw errors.badRequest('name in URL does not match name in Eviction object')
  const pods = scope.store
  const pod = await pods.get(scope.namespace, name)
  const deleteOptions = obj(eviction.deleteOptions)
  const phase = obj(pod.status).phase
  const ignoresBudgets = pod.metadata.deletionTimestamp !== undefined || phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending'
  if (!ignoresBudgets && budgets) {
    const labels = pod.metadata.labels ?? {}
    const covering = (await budgets.list({ namespace: scope.namespace })).items.filter((pdb) => {
      const selector = obj(pdb.spec).selector
      return isPlainObject(selector) && Object.keys(selector).length > 0 && matchesLabelSelector(selector, labels)
    })
    if (covering.length > 1) {
      throw new ApiError(failureStatus(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'))
    }
    const pdb = covering[0]
    if (pdb) {
      const podsSelected = (await pods.list({ namespace: scope.namespace })).items.filter((p) => matchesLabelSelector(obj(obj(pdb.spec).selector), p.metadata.labels))
      await budgets.rewrite(scope.namespace, pdb.metadata.name!, (current) => {
        let status = obj(current.status)
        if (typeof status.observedGeneration !== 'number' || status.observedGeneration < (current.metadata.generation ?? 1)) {
          status = computedStatus(current, podsSelected)
        }
        const allowed = typeof status.disruptionsAllowed === 'number' ? status.disruptionsAllowed : 0
        if (allowed < 0) throw errors.forbidden({ group: '', resource: 'pods' }, name, 'pdb disruptions allowed is negative')
        if (allowed === 0) {
          throw tooManyRequests(`The disruption budget ${current.metadata.name!} needs ${Number(status.desiredHealthy ?? 0)} healthy pods and has ${Number(status.currentHealthy ?? 0)} currently`)
        }
        status.disruptionsAllowed = allowed - 1
        status.disruptedPods = { ...obj(status.disruptedPods), [name]: nowTimestamp() }
        current.status = status
      })
    }
  }
  // The reference's eviction deletes its pod without admission (rest.ValidateAllObjectFunc).
  await pods.deleteObject(scope.namespace, name, {
    admission: false,
    ...(typeof deleteOptions.gracePeriodSeconds === 'number' ? { gracePeriodSeconds: deleteOptions.gracePeriodSeconds } : {}),
    ...(isPlainObject(deleteOptions.preconditions) ? { preconditions: deleteOptions.preconditions as { uid?: string; resourceVersion?: string } } : {}),
  })
  await writeObject(scope.res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, output)
}
