/**
 * The object a create or replace sends: read, decoded by its Content-Type, checked against the
 * endpoint's kind and namespace, then typed against the kind's schema per fieldValidation.
 */
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { decodeRequestBody, readBody, requestMediaType } from '../negotiation.js'
import type { KubeObject } from '../registry/object.js'
import { decodeRequestObject } from '../schema/decode.js'
import { type FieldValidation, fieldValidationOf } from '../schema/field-validation.js'
import { type Scope, objectFromBody } from './scope.js'

export async function readRequestObject(scope: Scope): Promise<KubeObject> {
  return (await readRequest(scope)).obj
}

/**
 * The request's object, and `again`: the body decoded once more into a fresh object (checked
 * alike, reporting nothing twice: its warnings went with the first decoding).
 */
export async function readRequest(scope: Scope): Promise<{ obj: KubeObject; again: () => Promise<KubeObject> }> {
  const raw = await readBody(scope.req)
  const decode = async (mode: FieldValidation, text: string | undefined) =>
    decodeRequestObject(scope.store.strategy, objectFromBody(scope, await decodeRequestBody(scope.req, raw, scope.store.strategy)), mode, scope.res, text)
  // Duplicate fields can only be told from the text of a JSON or YAML body.
  const text = requestMediaType(scope.req) === PROTOBUF_MEDIA_TYPE ? undefined : raw.toString('utf8')
  const obj = await decode(fieldValidationOf(scope.query), text)
  return { obj, again: () => decode('Ignore', undefined) }
}
