/**
 * DELETE of one object and of a collection (deletecollection). Options come from the body
 * (DeleteOptions) and the query: dryRun (All), preconditions (uid, resourceVersion: 409
 * Conflict when stale), gracePeriodSeconds and propagationPolicy / orphanDependents
 * (validated and accepted; objects are deleted at once and there is no garbage collector, so
 * dependents are neither deleted nor orphaned). The answer is the reference's: the deleted
 * object for kinds that return it (namespaces), a Success Status naming it for the others,
 * and the `<Kind>List` of the deleted objects for a collection.
 */
import { decodeRequestBody, negotiateOutput, readBody, writeObject } from '../negotiation.js'
import type { DeleteOptions } from '../registry/generic-store.js'
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { invalidValue } from '../registry/strategy.js'
import { type Cause, errors, toApiError } from '../status-errors.js'
import { type Scope, isDryRun, selection } from './scope.js'

/** Kinds whose DELETE answers with the object (the reference's ReturnDeletedObject). */
const RETURNS_OBJECT = new Set(['namespaces'])

const PROPAGATION = ['Foreground', 'Background', 'Orphan']

/**
 * How many objects a deletecollection deletes at once: the reference's
 * --delete-collection-workers (default 1). This server deletes sequentially, one worker.
 */
export const DELETE_COLLECTION_WORKERS = 1

export interface ParsedDeleteOptions extends DeleteOptions {
  gracePeriodSeconds?: number
  propagationPolicy?: string
}

function queryInt(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name)
  if (v === null || v === '') return undefined
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`)
  return Number(v)
}

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
  const grace = typeof options.gracePeriodSeconds === 'number' ? options.gracePeriodSeconds : queryInt(query, 'gracePeriodSeconds')
  const propagation = typeof options.propagationPolicy === 'string' ? options.propagationPolicy : (query.get('propagationPolicy') ?? undefined)
  const orphanQuery = query.get('orphanDependents')
  const orphan = typeof options.orphanDependents === 'boolean' ? options.orphanDependents : orphanQuery !== null && orphanQuery !== '' ? orphanQuery === 'true' : undefined
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
    ...(propagation ? { propagationPolicy: propagation } : orphan !== undefined ? { propagationPolicy: orphan ? 'Orphan' : 'Background' } : {}),
  }
}

function storeOptions(o: ParsedDeleteOptions): DeleteOptions {
  return { ...(o.dryRun !== undefined ? { dryRun: o.dryRun } : {}), ...(o.preconditions ? { preconditions: o.preconditions } : {}) }
}

export async function deleteHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false, customResource: scope.store.strategy.customResource ?? false })
  const options = await readDeleteOptions(scope)
  const deleted = await scope.store.delete(scope.namespace, scope.name!, storeOptions(options))
  const { strategy } = scope.store
  if (RETURNS_OBJECT.has(strategy.resource) && strategy.group === '') {
    await writeObject(scope.res, 200, deleted, output)
    return
  }
  await writeObject(
    scope.res,
    200,
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

/**
 * DELETE of a collection: every object of the namespace (or the cluster) the label and field
 * selectors match, deleted one after the other (DELETE_COLLECTION_WORKERS) with the request's
 * options; objects already gone are skipped. Answers the `<Kind>List` of the deleted objects.
 */
export async function deleteCollectionHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false, customResource: scope.store.strategy.customResource ?? false })
  const sel = selection(scope)
  const options = await readDeleteOptions(scope)
  const { store } = scope
  const listed = await store.list(sel)
  const deleted: KubeObject[] = []
  for (const item of listed.items) {
    try {
      deleted.push(await store.delete(item.metadata.namespace, item.metadata.name!, storeOptions(options)))
    } catch (err) {
      if (toApiError(err).code === 404) continue
      throw err
    }
  }
  await writeObject(scope.res, 200, { kind: `${store.strategy.kind}List`, apiVersion: store.apiVersion, metadata: { resourceVersion: listed.resourceVersion }, items: deleted }, output)
}
