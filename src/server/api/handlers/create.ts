/** POST to a collection: 201 and the created object (also on dry run). */
import { decodeBody, negotiateOutput, readBody, writeObject } from '../negotiation.js'
import { managerOf, trackFields } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, objectFromBody } from './scope.js'

export async function createHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const obj = objectFromBody(scope, decodeBody(scope.req, await readBody(scope.req)))
  const created = await scope.store.create(obj, { dryRun, trackFields: trackFields(scope.store, managerOf(scope, 'CreateOptions')) })
  writeObject(scope.res, 201, created, output)
}
