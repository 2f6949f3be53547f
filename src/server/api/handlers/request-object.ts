/**
 * The object a create or replace sends: read, decoded by its Content-Type, checked against the
 * endpoint's kind and namespace, then typed against the kind's schema per fieldValidation.
 */
import { PROTOBUF_MEDIA_TYPE } from '../../../core/protobuf/index.js'
import { decodeRequestBody, readBody, requestMediaType } from '../negotiation.js'
import type { KubeObject } from '../registry/object.js'
import { decodeRequestObject } from '../schema/decode.js'
import { fieldValidationOf } from '../schema/field-validation.js'
import { type Scope, objectFromBody } from './scope.js'

export async function readRequestObject(scope: Scope): Promise<KubeObject> {
  const raw = await readBody(scope.req)
  const body = objectFromBody(scope, await decodeRequestBody(scope.req, raw, scope.store.strategy))
  // Duplicate fields can only be told from the text of a JSON or YAML body.
  const text = requestMediaType(scope.req) === PROTOBUF_MEDIA_TYPE ? undefined : raw.toString('utf8')
  return decodeRequestObject(scope.store.strategy, body, fieldValidationOf(scope.query), scope.res, text)
}
