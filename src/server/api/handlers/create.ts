/** POST to a collection: 201 and the created object (also on dry run). */
import { writeObject } from '../negotiation.js'
import { tracking } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, responseOutput } from './scope.js'
import { readRequest } from './request-object.js'
import { admissionRequest, writeOptions } from './admission-request.js'

export async function createHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, false)
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const { obj, again } = await readRequest(scope)
  const { strategy } = scope.store
  strategy.fromRequester?.(obj, scope.ctx.user)
  // The decoded body is this request's alone: no copy needed, and a retry decodes it again.
  const created = await scope.store.create(obj, {
    dryRun,
    handOver: true,
    again: async () => {
      const fresh = await again()
      strategy.fromRequester?.(fresh, scope.ctx.user)
      return fresh
    },
    ...tracking(scope, 'CreateOptions'),
    admission: admissionRequest(scope, writeOptions(scope, 'CreateOptions')),
  })
  await writeObject(scope.res, 201, created, output)
}
