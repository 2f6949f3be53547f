/**
 * The reference's JSONPatch library (k8s.io/apiserver/pkg/cel/library/jsonpatch.go), declared
 * for MutatingAdmissionPolicy JSONPatch expressions: `jsonpatch.escapeKey(k)` escapes a key for
 * a JSON Pointer path (`~` as `~0`, `/` as `~1`, RFC 6901), so
 * `"/metadata/labels/" + jsonpatch.escapeKey("app.kubernetes.io/name")` type-checks and
 * evaluates as it does there. Registered on the environments of mutation expressions only.
 */
import type { Environment } from '@marcbachmann/cel-js'

/** The value `jsonpatch` is bound to: a namespace for the library's function. */
export class CelJsonPatchLibrary {}

const LIBRARY_TYPE = 'kubernetes.JSONPatchLibrary'

/** RFC 6901 escaping of one reference token. */
export function escapeJsonPointerKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

export function registerJsonPatchLibrary(env: Environment): void {
  env.registerType(LIBRARY_TYPE, CelJsonPatchLibrary as never)
  env.registerConstant('jsonpatch', LIBRARY_TYPE, new CelJsonPatchLibrary())
  env.registerFunction(`${LIBRARY_TYPE}.escapeKey(string): string`, (_library: unknown, key: string) => escapeJsonPointerKey(key))
}
