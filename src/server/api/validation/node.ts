/**
 * Validation of the node.k8s.io API group, after the reference's `pkg/apis/node/validation/validation.go`:
 * a RuntimeClass's handler is a DNS label, and immutable.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, invalid } from './field/index.js'
import { str } from './helpers.js'
import { nameIsDNSLabel } from './names.js'
import { validateImmutableField } from './objectmeta.js'

type ErrorList = CauseLike[]

export function validateRuntimeClass(o: KubeObject): ErrorList {
  const handler = str(o.handler)
  return nameIsDNSLabel(handler, false).map((m) => invalid(Path.of('handler'), handler, m))
}

export function validateRuntimeClassUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return validateImmutableField(str(o.handler), str(old.handler), Path.of('handler'))
}
