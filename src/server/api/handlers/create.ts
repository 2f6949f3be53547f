/** POST to a collection: 201 and the created object (also on dry run). */
import { decodeRequestBody, negotiateOutput, readBody, writeObject } from '../negotiation.js'
import { type Scope, checkFieldValidation, isDryRun, objectFromBody } from './scope.js'

export async function createHandler(scope: Scope): Promise<void> {
  const output = negotiateOutput(scope.req.headers.accept, { table: false, customResource: scope.store.strategy.customResource ?? false })
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const obj = objectFromBody(scope, await decodeRequestBody(scope.req, await readBody(scope.req), scope.store.strategy))
  const created = await scope.store.create(obj, { dryRun })
  await writeObject(scope.res, 201, created, output)
}
