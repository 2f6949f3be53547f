/** PUT of one object: a full replacement; a stale metadata.resourceVersion is a 409 Conflict. */
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
  const conditional = typeof obj.metadata.resourceVersion === 'string' && obj.metadata.resourceVersion !== ''
  const updated = await scope.store.update(scope.namespace, scope.name!, () => obj, {
    dryRun,
    retryOnConflict: !conditional,
    trackFields: trackFields(scope.store, managerOf(scope, 'UpdateOptions'), scope.subresource),
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
  })
  await writeObject(scope.res, 200, updated, output)
}
