/**
 * PUT of one object: a full replacement; a stale metadata.resourceVersion is a 409 Conflict.
 * Without one (absent, "" or "0") the update is unconditional where the kind's strategy allows
 * it (the reference's AllowUnconditionalUpdate), else a 409 saying it must be specified.
 */
import { errors } from '../status-errors.js'
import { writeObject } from '../negotiation.js'
import { managerOf, trackFields } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, responseOutput } from './scope.js'
import { readRequestObject } from './request-object.js'

export async function updateHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, false)
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const obj = await readRequestObject(scope)
  const bodyName = obj.metadata.name
  if (bodyName === undefined || bodyName === '') {
    throw errors.badRequest(`the name of the object () does not match the name on the URL (${scope.name!})`)
  }
  if (bodyName !== scope.name) throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${scope.name!})`)
  const rv = obj.metadata.resourceVersion
  const conditional = typeof rv === 'string' && rv !== '' && rv !== '0'
  if (rv === '0') delete obj.metadata.resourceVersion
  const { strategy } = scope.store
  const updated = await scope.store.update(scope.namespace, scope.name!, () => {
    if (!conditional && strategy.unconditionalUpdate === false) {
      throw errors.conflict({ group: strategy.group, resource: strategy.resource }, scope.name!, 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update')
    }
    return obj
  }, {
    dryRun,
    retryOnConflict: !conditional,
    trackFields: trackFields(scope.store, managerOf(scope, 'UpdateOptions'), scope.subresource),
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
  })
  await writeObject(scope.res, 200, updated, output)
}
