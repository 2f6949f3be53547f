/**
 * A request's object as the reference's decoding leaves it: built-in kinds through their Go
 * types (typed.ts), custom resources through their structural schema (structural.ts). Unknown
 * fields are dropped in every mode; `fieldValidation=Strict` makes them a 400 (a 422 for
 * patches, as the reference's patch handler), Warn sends one warning each. A value of the wrong
 * type cannot be decoded: 400 (422 for patches) whatever the mode.
 */
import type { Response } from '../../http/types.js'
import { loadOpenApiDefinitions } from '../openapi-data.js'
import type { KubeObject } from '../registry/object.js'
import type { Strategy } from '../registry/strategy.js'
import { errors } from '../status-errors.js'
import { type FieldValidation, addWarnings, strictDecodingError, unknownFieldMessage } from './field-validation.js'
import { duplicateFieldMessage, duplicateFields } from './duplicates.js'
import { goFormat } from './go-format.js'
import { pruneAndDefault } from './structural.js'
import { TypedDecoder } from './typed.js'

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'

const decoders = new Map<'json' | 'unstructured', Promise<TypedDecoder>>()

/** The JSON body decoder, or the unstructured converter strategic merge patches go through. */
function typedDecoder(mode: 'json' | 'unstructured' = 'json'): Promise<TypedDecoder> {
  let decoder = decoders.get(mode)
  if (!decoder) {
    decoder = loadOpenApiDefinitions().then((definitions) => new TypedDecoder(definitions, mode))
    decoders.set(mode, decoder)
  }
  return decoder
}

interface Decoded {
  obj: KubeObject
  unknown: string[]
  error?: string
}

/** Decodes `obj` for `strategy` (synchronously, once the definitions are loaded). */
function decodeWith(typed: TypedDecoder, strategy: Strategy, obj: KubeObject): Decoded {
  if (strategy.customResource) {
    const unknown: string[] = []
    const schema = strategy.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
    const pruned = pruneAndDefault(schema, obj, '', unknown, true) as KubeObject
    const meta = typed.decode(OBJECT_META, pruned.metadata)
    const metaUnknown = meta.unknown.map((p) => `metadata.${p}`)
    if (!meta.error) pruned.metadata = meta.value as KubeObject['metadata']
    return { obj: pruned, unknown: [...metaUnknown, ...unknown] }
  }
  const root = typed.rootOf(strategy.group, strategy.version, strategy.kind)
  if (!root) return { obj, unknown: [] }
  const result = typed.decode(root, obj)
  return { obj: result.value as KubeObject, unknown: result.unknown, ...(result.error ? { error: result.error } : {}) }
}

/** `Deployment in version "v1" cannot be handled as a Deployment: <why>` (the kind and version are the body's). */
function cannotBeHandled(strategy: Strategy, obj: KubeObject, why: string): Error {
  const kind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : strategy.kind
  const version = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion.split('/').pop()! : strategy.version
  return errors.badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${strategy.kind}: ${why}`)
}

/**
 * The body of a create or update, decoded: unknown fields dropped, reported per the directive
 * with the duplicate fields of the raw JSON `text` (when given).
 */
export async function decodeRequestObject(strategy: Strategy, obj: KubeObject, mode: FieldValidation, res: Response, text?: string): Promise<KubeObject> {
  const decoded = decodeWith(await typedDecoder(), strategy, obj)
  if (decoded.error) throw cannotBeHandled(strategy, obj, decoded.error)
  const duplicates = mode !== 'Ignore' && text !== undefined ? duplicateFields(text).map(duplicateFieldMessage) : []
  const messages = [...duplicates, ...decoded.unknown.map(unknownFieldMessage)]
  if (messages.length > 0 && mode === 'Strict') throw cannotBeHandled(strategy, obj, strictDecodingError(messages))
  if (mode === 'Warn') addWarnings(res, messages)
  return decoded.obj
}

/**
 * The check of a patched object, ready to run inside the store's update: unknown fields as
 * the patch handler reports them (422 `patch: Invalid value: ...`), the object returned pruned.
 * `patch` is the parsed request patch (strategic merge patches are quoted as Go prints the map).
 */
export async function patchedObjectChecker(
  strategy: Strategy,
  mode: FieldValidation,
  patchType: 'json' | 'merge' | 'strategic',
  patch: unknown,
  res: Response,
): Promise<(patched: KubeObject) => KubeObject> {
  const typed = await typedDecoder(patchType === 'strategic' ? 'unstructured' : 'json')
  return (patched) => {
    const decoded = decodeWith(typed, strategy, patched)
    const quoted = () => (patchType === 'strategic' ? goFormat(patch) : JSON.stringify(patched))
    if (decoded.error) throw errors.invalid('', '', '', [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(quoted())}: ${decoded.error}`, field: 'patch' }])
    const messages = decoded.unknown.map(unknownFieldMessage)
    if (messages.length > 0 && mode === 'Strict') {
      throw errors.invalid('', '', '', [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(quoted())}: ${strictDecodingError(messages)}`, field: 'patch' }])
    }
    if (mode === 'Warn') addWarnings(res, messages)
    return decoded.obj
  }
}
