/** PUT of one object: a full replacement; a stale metadata.resourceVersion is a 409 Conflict. */
import { errors } from '../status-errors.js'
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { decodeRequestBody, negotiateOutput, readBody, requestMediaType, writeObject } from '../negotiation.js'
import { decodeRequestObject } from '../schema/decode.js'
import { fieldValidationOf } from '../schema/field-validation.js'
import { managerOf, trackFields } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, objectFromBody } from './scope.js'

export async function updateHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false, customResource: scope.store.strategy.customResource ?? false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const raw = await readBody(scope.req)
  const body = objectFromBody(scope, await decodeRequestBody(scope.req, raw, scope.store.strategy))
  // Duplicate fields can only be told from the text of a JSON or YAML body.
  const text = requestMediaType(scope.req) === PROTOBUF_MEDIA_TYPE ? undefined : raw.toString('utf8')
  const obj = await decodeRequestObject(scope.store.strategy, body, fieldValidationOf(scope.query), scope.res, text)
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
