/**
 * PUT of one object: a full replacement; a stale metadata.resourceVersion is a 409 Conflict.
 * Without one (absent, "" or "0") the update is unconditional where the kind's strategy allows
 * it (the reference's AllowUnconditionalUpdate), else a 409 saying it must be specified.
 * An object that does not exist is created (201) where the strategy allows it (the
 * reference's AllowCreateOnUpdate, registry/generic/registry/store.go Update), if the
 * requester may also create it; else it is the store's 404.
 */
import { ApiError, errors } from '../status-errors.js'
import { type Output, writeObject } from '../negotiation.js'
import type { KubeObject } from '../registry/object.js'
import { createAuthorization } from './create-authorization.js'
import { tracking } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, responseOutput } from './scope.js'
import { readRequestObject } from './request-object.js'
import { admissionRequest, writeOptions } from './admission-request.js'

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
  const createOnUpdate = scope.store.strategy.createOnUpdate === true && scope.subresource === undefined
  // A create that lost a race to another create replaces what that one made, as the reference's
  // GuaranteedUpdate would on its next attempt.
  for (let attempt = 0; ; attempt++) {
    try {
      // The store changes what it is given: a create after a 404 starts from the request's object.
      return await replace(scope, createOnUpdate ? structuredClone(obj) : obj, dryRun, output)
    } catch (err) {
      if (!createOnUpdate || !isReason(err, 'NotFound')) throw err
    }
    try {
      return await create(scope, obj, dryRun, output)
    } catch (err) {
      if (attempt > 0 || !isReason(err, 'AlreadyExists')) throw err
    }
  }
}

async function replace(scope: Scope, obj: KubeObject, dryRun: boolean, output: Output): Promise<void> {
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
    ...tracking(scope, 'UpdateOptions', scope.subresource),
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
    admission: admissionRequest(scope, writeOptions(scope, 'UpdateOptions')),
  })
  await writeObject(scope.res, 200, updated, output)
}

/** The PUT's object created: its resourceVersion is no precondition (the stored object gets a new one); the managed fields record an Update. */
async function create(scope: Scope, obj: KubeObject, dryRun: boolean, output: Output): Promise<void> {
  const fresh = structuredClone(obj)
  delete fresh.metadata.resourceVersion
  if (scope.store.strategy.namespaced) fresh.metadata.namespace = scope.namespace
  const checkCreate = createAuthorization(scope)
  const created = await scope.store.create(fresh, {
    dryRun,
    handOver: true,
    ...tracking(scope, 'UpdateOptions'),
    ...(checkCreate ? { checkCreate } : {}),
    // Admitted as a create, with the update's options as CreateOptions (the reference's updateToCreateOptions).
    admission: admissionRequest(scope, writeOptions(scope, 'CreateOptions')),
  })
  await writeObject(scope.res, 201, created, output)
}

function isReason(err: unknown, reason: string): boolean {
  return err instanceof ApiError && err.status.reason === reason
}
