/** POST to a collection: 201 and the created object (also on dry run). */
import { decodeBody, negotiateOutput, readBody, writeObject } from '../negotiation.js'
import { decodeRequestObject } from '../schema/decode.js'
import { fieldValidationOf } from '../schema/field-validation.js'
import { type Scope, checkFieldValidation, isDryRun, objectFromBody } from './scope.js'

export async function createHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const raw = await readBody(scope.req)
  const body = objectFromBody(scope, decodeBody(scope.req, raw))
  const obj = await decodeRequestObject(scope.store.strategy, body, fieldValidationOf(scope.query), scope.res, raw.toString('utf8'))
  const created = await scope.store.create(obj, { dryRun })
  writeObject(scope.res, 201, created, output)
}
