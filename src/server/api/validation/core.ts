/**
 * Validation of the core API group (`v1`), after the reference's
 * `pkg/apis/core/validation/validation.go`: the rules live in ./core/, one file per area; this
 * module is the group's entry point for the strategies and the other groups.
 */
import { Path } from './field/index.js'
import type { ErrorList } from './field/index.js'
import { type PodValidationOptions, validatePodSpec as validatePodSpecAt } from './core/pod-spec.js'
import type { Obj } from './helpers.js'

export * from './core/index.js'
export { isDNS1035Label } from './strings.js'

/**
 * ValidatePodSpec of an embedded spec at a dotted path (`spec.template.spec`), for the
 * callers that name the path as text.
 */
export function validatePodSpecAtPath(spec: unknown, path: string): ErrorList {
  const [first, ...rest] = path.split('.')
  return validatePodSpecAt(spec, undefined, Path.of(first!, ...rest))
}

/**
 * ValidatePodSpec: `(spec, podMeta, path, opts)` as the reference, or `(spec, 'dotted.path')`
 * for an embedded spec (the earlier signature, kept for the other groups' callers).
 */
export function validatePodSpec(spec: unknown, podMetaOrPath: Obj | string | undefined, fldPath?: Path, opts: PodValidationOptions = {}): ErrorList {
  if (typeof podMetaOrPath === 'string') return validatePodSpecAtPath(spec, podMetaOrPath)
  return validatePodSpecAt(spec, podMetaOrPath, fldPath ?? Path.of('spec'), opts)
}
