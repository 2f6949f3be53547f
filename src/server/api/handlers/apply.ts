/**
 * PATCH with `application/apply-patch+yaml`: server-side apply. The body (YAML or JSON) is the
 * manager's whole intent; it is merged into the live object by the field manager, which owns
 * the conflicts and the managedFields. A missing object is created (201). `fieldManager` is
 * required, `force=true` takes conflicting fields over.
 */
import { ApplyBadRequest, ApplyConflictError, ApplySchemaError, FieldSet, applyConfiguration } from '../../../core/apply/index.js'
import { setPath } from '../kinds/crd.js'
import { loadYaml } from '../../../core/util/yaml.js'
import { type Status, failureStatus } from '../../http/status.js'
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { ApiError, errors } from '../status-errors.js'
import { readBody, writeObject } from '../negotiation.js'
import { fieldManagerScope, requestedFieldManager } from './field-manager.js'
import { createAuthorization } from './create-authorization.js'
import { type Scope, checkFieldValidation, isDryRun, responseOutput } from './scope.js'
import { admissionRequest, writeOptions } from './admission-request.js'

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml'

function patchOptionsInvalid(reason: string, message: string, field: string): ApiError {
  return errors.invalid('meta.k8s.io', 'PatchOptions', '', [{ reason, message, field }])
}

/** `force` on a patch that is not an apply is the reference's PatchOptions validation error. */
export function checkNoForce(scope: Scope): void {
  if (scope.query.has('force')) throw patchOptionsInvalid('FieldValueForbidden', 'Forbidden: may not be specified for non-apply patch', 'force')
}

function parseForce(value: string | null): boolean {
  if (value === null || value === '') return false
  if (value === 'true' || value === '1' || value === 'True' || value === 'TRUE' || value === 't' || value === 'T') return true
  if (value === 'false' || value === '0' || value === 'False' || value === 'FALSE' || value === 'f' || value === 'F') return false
  throw errors.badRequest(`force: invalid value ${JSON.stringify(value)}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`)
}

/** `default/web; apps/v1, Kind=Deployment`: how the reference names the applied object in errors. */
function objectName(obj: KubeObject): string {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {}
  const str = (v: unknown) => (typeof v === 'string' ? v : '')
  const apiVersion = str(obj.apiVersion)
  const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`
  return `${str(meta.namespace)}/${str(meta.name)}; ${groupVersion}, Kind=${str(obj.kind)}`
}

function toApiError(err: unknown, config: KubeObject): unknown {
  if (err instanceof ApplyConflictError) return new ApiError(failureStatus(409, 'Conflict', err.message, { causes: err.causes }))
  if (err instanceof ApplyBadRequest) return errors.badRequest(err.message)
  // Not a Status in the reference either: a 500 with the error's text and no reason.
  if (err instanceof ApplySchemaError) {
    const { reason: _unknown, ...status } = failureStatus(500, '', `failed to create typed patch object (${objectName(config)}): ${err.message}`)
    void _unknown
    return new ApiError(status as Status)
  }
  return err
}

interface ApplyRequest {
  config: KubeObject
  manager: string
  force: boolean
  dryRun: boolean
}

/** The query and body of an apply request, checked as the reference checks them. */
async function readApply(scope: Scope): Promise<ApplyRequest> {
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const manager = requestedFieldManager(scope, 'PatchOptions')
  if (manager === '') throw patchOptionsInvalid('FieldValueRequired', 'Required value: is required for apply patch', 'fieldManager')
  const force = parseForce(scope.query.get('force'))
  const text = (await readBody(scope.req)).toString('utf8')
  let config: unknown
  try {
    // Repeated keys: the last one wins, unless fieldValidation=Strict (checked below).
    config = loadYaml(text, { json: true })
  } catch (err) {
    throw errors.badRequest(`error decoding YAML: ${(err as Error).message}`)
  }
  if (scope.query.get('fieldValidation') === 'Strict') {
    try {
      loadYaml(text)
    } catch (err) {
      throw errors.badRequest(`error strict decoding YAML: ${(err as Error).message}`)
    }
  }
  if (config === undefined || config === null) config = {}
  if (!isPlainObject(config)) throw errors.badRequest('error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}')
  return { config: config as KubeObject, manager, force, dryRun }
}

export async function applyPatchHandler(scope: Scope): Promise<void> {
  const output = responseOutput(scope, false)
  const { config: applied, manager, force, dryRun } = await readApply(scope)
  const { store } = scope
  const fmScope = fieldManagerScope(store, scope.subresource)
  const options = { manager, force }
  checkName(scope, applied)

  let managedFields: unknown
  try {
    const updated = await store.update(
      scope.namespace,
      scope.name!,
      (current) => {
        const next = applyConfiguration(current as KubeObject & Record<string, unknown>, applied, options, fmScope) as KubeObject
        managedFields = next.metadata.managedFields
        return next
      },
      {
        dryRun,
        retryOnConflict: true,
        ...(scope.subresource ? { subresource: scope.subresource } : {}),
        admission: admissionRequest(scope, writeOptions(scope, 'PatchOptions')),
        // The apply computed the entries; a status write keeps them through the store's status copy.
        trackFields: (obj) => {
          if (managedFields === undefined) delete obj.metadata.managedFields
          else obj.metadata.managedFields = managedFields
        },
      },
    )
    await writeObject(scope.res, 200, updated, output)
    return
  } catch (err) {
    const notFound = err instanceof ApiError && err.code === 404 && err.status.reason === 'NotFound' && !scope.subresource
    if (!notFound) throw toApiError(err, applied)
  }
  let created: KubeObject
  try {
    created = applyConfiguration(undefined, applied, options, fmScope) as KubeObject
  } catch (err) {
    throw toApiError(err, applied)
  }
  if (store.strategy.namespaced && created.metadata.namespace === undefined) created.metadata.namespace = scope.namespace
  created.metadata.name ??= scope.name!
  // The apply's create must be allowed as a create too (forceAllowCreate with the reference's withAuthorization).
  const checkCreate = createAuthorization(scope)
  // Admitted as a create, with the patch's options as CreateOptions (the reference's patchToCreateOptions).
  const admission = admissionRequest(scope, writeOptions(scope, 'CreateOptions'))
  await writeObject(scope.res, 201, await store.create(created, { dryRun, admission, ...(checkCreate ? { checkCreate } : {}) }), output)
}

/** The reference's checkName: the applied name and namespace must be those of the URL. */
function checkName(scope: Scope, obj: KubeObject): void {
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {}
  const name = typeof meta.name === 'string' ? meta.name : ''
  if (name !== scope.name) throw errors.badRequest(`the name of the object (${name}) does not match the name on the URL (${scope.name!})`)
  const ns = typeof meta.namespace === 'string' ? meta.namespace : ''
  if (scope.store.strategy.namespaced && ns !== '' && ns !== scope.namespace) {
    throw errors.badRequest(`the namespace of the object (${ns}) does not match the namespace on the request (${scope.namespace ?? ''})`)
  }
}

/**
 * Apply to the scale subresource: the Scale's spec.replicas is applied to the object's replicas
 * field (the CRD's specReplicasPath for custom resources), owned by the manager with
 * subresource `scale` in the object's managedFields; the answer is the object's Scale.
 */
export async function applyScaleHandler(scope: Scope, toScale: (obj: KubeObject) => KubeObject, replicasPath: readonly string[]): Promise<void> {
  const output = responseOutput(scope, false)
  const { config, manager, force, dryRun } = await readApply(scope)
  if (config.apiVersion !== 'autoscaling/v1') {
    throw errors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(config.apiVersion ?? '')}, expected: autoscaling/v1`)
  }
  checkName(scope, config)
  const { store } = scope
  const spec = isPlainObject(config.spec) ? config.spec : {}
  const parentConfig: KubeObject = { apiVersion: store.apiVersion, kind: store.strategy.kind, metadata: { name: scope.name! } }
  if (spec.replicas !== undefined) setPath(parentConfig, replicasPath, spec.replicas)
  const replicasSet = FieldSet.of(replicasPath.map((s) => `f:${s}`))
  const fmScope = { ...fieldManagerScope(store, 'scale'), resetFields: (s: FieldSet) => s.intersection(replicasSet) }
  let managedFields: unknown
  try {
    const updated = await store.update(
      scope.namespace,
      scope.name!,
      (current) => {
        const next = applyConfiguration(current as KubeObject & Record<string, unknown>, parentConfig, { manager, force }, fmScope) as KubeObject
        managedFields = next.metadata.managedFields
        return next
      },
      {
        dryRun,
        retryOnConflict: true,
        admission: admissionRequest(scope, writeOptions(scope, 'PatchOptions'), { subresource: 'scale' }),
        trackFields: (obj) => {
          if (managedFields === undefined) delete obj.metadata.managedFields
          else obj.metadata.managedFields = managedFields
        },
      },
    )
    await writeObject(scope.res, 200, toScale(updated), output)
  } catch (err) {
    throw toApiError(err, parentConfig)
  }
}
