/** POST to a collection: 201 and the created object (also on dry run). */
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { decodeRequestBody, negotiateOutput, readBody, requestMediaType, writeObject } from '../negotiation.js'
import { decodeRequestObject } from '../schema/decode.js'
import { fieldValidationOf } from '../schema/field-validation.js'
import { managerOf, trackFields } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, objectFromBody } from './scope.js'

export async function createHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false, customResource: scope.store.strategy.customResource ?? false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const raw = await readBody(scope.req)
  const body = objectFromBody(scope, await decodeRequestBody(scope.req, raw, scope.store.strategy))
  // Duplicate fields can only be told from the text of a JSON or YAML body.
  const text = requestMediaType(scope.req) === PROTOBUF_MEDIA_TYPE ? undefined : raw.toString('utf8')
  const obj = await decodeRequestObject(scope.store.strategy, body, fieldValidationOf(scope.query), scope.res, text)
  const created = await scope.store.create(obj, { dryRun, trackFields: trackFields(scope.store, managerOf(scope, 'CreateOptions')) })
  await writeObject(scope.res, 201, created, output)
}
