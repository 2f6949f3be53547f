/**
 * PATCH of one object with the project's patch engine: JSON patch (RFC 6902), JSON merge patch
 * (RFC 7386) and strategic merge patch, selected by Content-Type. A resourceVersion the patch
 * sets is a precondition; otherwise a concurrent write makes the patch apply again.
 */
import { PatchError, type PatchType, applyPatch, goMarshal, parseGoJson } from '../../../core/patch/index.js'
import { GoJsonSyntaxError } from '../../../core/patch/parse.js'
import type { KubeObject } from '../registry/object.js'
import { errors } from '../status-errors.js'
import { readBody, requestMediaType, writeObject } from '../negotiation.js'
import { patchedObjectChecker } from '../schema/decode.js'
import { fieldValidationOf } from '../schema/field-validation.js'
import { APPLY_PATCH_TYPE, applyPatchHandler, checkNoForce } from './apply.js'
import { tracking } from './field-manager.js'
import { type Scope, checkFieldValidation, isDryRun, responseOutput } from './scope.js'
import { admissionRequest, writeOptions } from './admission-request.js'

export const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
}

/** The reference's bound on the operations of one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000

export interface ParsedPatch {
  type: PatchType
  patch: unknown
  /** Whether the patch names a resourceVersion (then a precondition: no retry on conflict). */
  setsResourceVersion: boolean
  dryRun: boolean
}

/** The patch of the request: its type, parsed body, and the query's dryRun. */
/** The patch types of custom resources as the reference lists them (no strategic merge patch). */
export const CUSTOM_RESOURCE_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']

export async function readPatch(scope: Scope): Promise<ParsedPatch> {
  const type = PATCH_TYPES[requestMediaType(scope.req)]
  if (scope.store.strategy.customResource && (type === undefined || type === 'strategic')) throw errors.unsupportedMediaType(CUSTOM_RESOURCE_PATCH_TYPES)
  if (!type) throw errors.unsupportedMediaType([...Object.keys(PATCH_TYPES), APPLY_PATCH_TYPE])
  checkFieldValidation(scope.query)
  const dryRun = isDryRun(scope.query.getAll('dryRun'))
  const text = (await readBody(scope.req)).toString('utf8')
  // The body of a JSON, merge or strategic patch is JSON (the reference decodes it with its
  // JSON decoder; YAML is only for apply).
  let patch: unknown
  try {
    patch = parseGoJson(text)
  } catch (err) {
    if (err instanceof GoJsonSyntaxError) throw errors.badRequest(`error decoding patch: ${err.message}`)
    throw err
  }
  if (type === 'json' && !Array.isArray(patch)) throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch')
  if (type === 'json' && (patch as unknown[]).length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${(patch as unknown[]).length}`)
  }
  if (type !== 'json' && (typeof patch !== 'object' || patch === null || Array.isArray(patch))) {
    throw errors.badRequest('json: cannot unmarshal array into Go value of type map[string]interface {}')
  }
  return { type, patch, setsResourceVersion: text.includes('resourceVersion'), dryRun }
}

/** `current` with the patch applied, as plain JSON values. */
export function patchObject<T extends Record<string, unknown>>(current: T, parsed: ParsedPatch): T {
  let result: Record<string, unknown>
  try {
    result = applyPatch(current, parsed.patch, parsed.type, true)
  } catch (err) {
    if (err instanceof PatchError) throw parsed.type === 'json' ? errors.invalidRequest() : errors.badRequest(err.message)
    throw err
  }
  // Back to plain JSON values (the engine keeps Go's integer/float distinction).
  return JSON.parse(goMarshal(result)) as T
}

export async function patchHandler(scope: Scope): Promise<void> {
  if (requestMediaType(scope.req) === APPLY_PATCH_TYPE) return applyPatchHandler(scope)
  const output = responseOutput(scope, false)
  const parsed = await readPatch(scope)
  checkNoForce(scope)
  const check = await patchedObjectChecker(scope.store.strategy, fieldValidationOf(scope.query), parsed.type, parsed.patch, scope.res)
  const updated = await scope.store.update(scope.namespace, scope.name!, (current) => check(patchObject(current as KubeObject & Record<string, unknown>, parsed)), {
    dryRun: parsed.dryRun,
    retryOnConflict: !parsed.setsResourceVersion,
    ...tracking(scope, 'PatchOptions', scope.subresource),
    ...(scope.subresource ? { subresource: scope.subresource } : {}),
    admission: admissionRequest(scope, writeOptions(scope, 'PatchOptions')),
  })
  await writeObject(scope.res, 200, updated, output)
}
