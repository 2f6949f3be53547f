/**
 * DELETE of one object. Options come from the body (DeleteOptions: dryRun, preconditions)
 * and the query. The answer is the reference's: the deleted object for kinds that return it
 * (namespaces), a Success Status naming it for the others.
 */
import { decodeBody, negotiateOutput, readBody, writeObject } from '../negotiation.js'
import { isPlainObject } from '../registry/object.js'
import { errors } from '../status-errors.js'
import { type Scope, isDryRun } from './scope.js'

/** Kinds whose DELETE answers with the object (the reference's ReturnDeletedObject). */
const RETURNS_OBJECT = new Set(['namespaces'])

export async function deleteHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false })
  const body = await readBody(scope.req)
  let options: Record<string, unknown> = {}
  if (body.length > 0 && body.toString('utf8').trim() !== '') {
    const decoded = decodeBody(scope.req, body)
    if (!isPlainObject(decoded)) throw errors.badRequest('the body of a DELETE must be DeleteOptions')
    options = decoded
  }
  const dryRunValues = [...scope.query.getAll('dryRun'), ...(Array.isArray(options.dryRun) ? options.dryRun.map(String) : [])]
  const pre = isPlainObject(options.preconditions) ? options.preconditions : {}
  const deleted = await scope.store.delete(scope.namespace, scope.name!, {
    dryRun: isDryRun(dryRunValues),
    preconditions: {
      ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
    },
  })
  const { strategy } = scope.store
  if (RETURNS_OBJECT.has(strategy.resource) && strategy.group === '') {
    writeObject(scope.res, 200, deleted, output)
    return
  }
  writeObject(
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
