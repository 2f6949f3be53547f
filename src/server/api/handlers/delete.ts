/**
 * DELETE of one object and of a collection (deletecollection). Options come from the body
 * (DeleteOptions) and the query: dryRun (All), preconditions (uid, resourceVersion: 409
 * Conflict when stale), gracePeriodSeconds and propagationPolicy / orphanDependents (the
 * registry turns them into graceful deletion and the garbage collector's finalizers). The
 * answer is the reference's: an object that stays (finalizers, grace period) as written, 202
 * only when orphanDependents=false asked for it; a deleted one as the object for kinds that
 * return it (namespaces) or a Success Status naming it; the `<Kind>List` of the listed objects
 * for a collection, deleted by --delete-collection-workers workers.
 */
import { decodeRequestBody, readBody, writeObject } from '../negotiation.js'
import { queryFlag, queryInt64 } from '../query.js'
import type { DeleteOptions } from '../registry/generic-store.js'
import { isPlainObject } from '../registry/object.js'
import { invalidValue } from '../registry/strategy.js'
import { type Cause, errors, toApiError } from '../status-errors.js'
import { type Scope, isDryRun, selection, responseOutput } from './scope.js'
import { admissionRequest } from './admission-request.js'

/** Kinds whose DELETE answers with the object (the reference's ReturnDeletedObject). */
const RETURNS_OBJECT = new Set(['namespaces'])

const PROPAGATION = ['Foreground', 'Background', 'Orphan']

/** How many objects a deletecollection deletes at once: --delete-collection-workers' default. */
export const DELETE_COLLECTION_WORKERS = 1

export type ParsedDeleteOptions = DeleteOptions


/** DeleteOptions of the request: the body's, then the query's. */
export async function readDeleteOptions(scope: Scope): Promise<ParsedDeleteOptions> {
  const body = await readBody(scope.req)
  let options: Record<string, unknown> = {}
  if (body.length > 0 && body.toString('utf8').trim() !== '') {
    const decoded = await decodeRequestBody(scope.req, body, { kind: 'DeleteOptions' })
    if (!isPlainObject(decoded)) throw errors.badRequest('the body of a DELETE must be DeleteOptions')
    options = decoded
  }
  const { query } = scope
  const dryRunValues = [...query.getAll('dryRun'), ...(Array.isArray(options.dryRun) ? options.dryRun.map(String) : [])]
  const pre = isPlainObject(options.preconditions) ? options.preconditions : {}
  const grace = typeof options.gracePeriodSeconds === 'number' ? options.gracePeriodSeconds : queryInt64(query, 'gracePeriodSeconds')
  const propagation = typeof options.propagationPolicy === 'string' ? options.propagationPolicy : (query.get('propagationPolicy') ?? undefined)
    const orphan = typeof options.orphanDependents === 'boolean' ? options.orphanDependents : queryFlag(query, 'orphanDependents')
  // apimachinery ValidateDeleteOptions.
  const causes: Cause[] = []
  if (orphan !== undefined && propagation !== undefined && propagation !== '') {
    causes.push(invalidValue('propagationPolicy', propagation, 'orphanDependents and deletionPropagation cannot be both set'))
  }
  if (propagation !== undefined && propagation !== '' && !PROPAGATION.includes(propagation)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(propagation)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      field: 'propagationPolicy',
    })
  }
  if (causes.length > 0) throw errors.invalid('meta.k8s.io', 'DeleteOptions', '', causes)
  return {
    dryRun: isDryRun(dryRunValues),
    preconditions: {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    },
    ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}),
    ...(propagation ? { propagationPolicy: propagation } : {}),
    ...(orphan !== undefined ? { orphanDependents: orphan } : {}),
  }
}

/** The DeleteOptions object admission sees (the reference's attributes carry the decoded options). */
export function deleteOptionsObject(options: ParsedDeleteOptions): Record<string, unknown> {
  const pre = options.preconditions ?? {}
  return {
    kind: 'DeleteOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
    ...(pre.uid !== undefined || pre.resourceVersion !== undefined ? { preconditions: { ...pre } } : {}),
    ...(options.orphanDependents !== undefined ? { orphanDependents: options.orphanDependents } : {}),
    ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.dryRun ? { dryRun: ['All'] } : {}),
  }
}

export async function deleteHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, false)
  const options = await readDeleteOptions(scope)
  const result = await scope.store.deleteObject(scope.namespace, scope.name!, { ...options, admission: admissionRequest(scope, deleteOptionsObject(options)) })
  // The reference answers 202 for an object that stays only when orphanDependents=false asked.
  const code = !result.deleted && options.orphanDependents === false ? 202 : 200
  const { strategy } = scope.store
  if (result.updated || (RETURNS_OBJECT.has(strategy.resource) && strategy.group === '')) {
    await writeObject(scope.res, code, result.object, output)
    return
  }
  const deleted = result.object
  await writeObject(
    scope.res,
    code,
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: deleted.metadata.name, ...(strategy.group ? { group: strategy.group } : {}), kind: strategy.resource, uid: deleted.metadata.uid },
    },
    output,
  )
}

/** Runs `work` on every item with at most `workers` at once; the first failure wins. */
export async function forEachWithWorkers<T>(items: readonly T[], workers: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  let failed: unknown
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const item = items[next++]!
      try {
        await work(item)
      } catch (err) {
        failed ??= err
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(workers, items.length)) }, worker))
  if (failed !== undefined) throw failed
}

/**
 * DELETE of a collection: every object of the namespace (or the cluster) the label and field
 * selectors match, deleted by `--delete-collection-workers` workers in parallel with the
 * request's options; objects already gone are skipped. Answers the `<Kind>List` of the objects
 * listed (the reference's answer), or the first error.
 */
export async function deleteCollectionHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, false)
  const sel = selection(scope)
  const options = await readDeleteOptions(scope)
  const { store } = scope
  const listed = await store.list(sel)
  // Each item is admitted with the collection request's attributes (its name is '').
  const admission = admissionRequest(scope, deleteOptionsObject(options), { collection: true })
  await forEachWithWorkers(listed.items, scope.deleteCollectionWorkers ?? DELETE_COLLECTION_WORKERS, async (item) => {
    try {
      await store.deleteObject(item.metadata.namespace, item.metadata.name!, { ...options, admission })
    } catch (err) {
      if (toApiError(err).code !== 404) throw err
    }
  })
  await writeObject(scope.res, 200, { kind: `${store.strategy.kind}List`, apiVersion: store.apiVersion, metadata: { resourceVersion: listed.resourceVersion }, items: listed.items }, output)
}
