/**
 * ValidatePodTemplateSpec as the workload groups call it (the template's labels, annotations
 * and pod spec), on the core group's pod spec validation.
 */
import type { CauseLike, Path } from './field/index.js'
import { validatePodSpec } from './core.js'
import { obj } from './helpers.js'
import { validateLabels } from './meta-v1.js'
import { validateAnnotations } from './objectmeta.js'

export function validatePodTemplateSpec(template: unknown, fldPath: Path): CauseLike[] {
  const t = obj(template)
  const meta = obj(t.metadata)
  return [...validateLabels(meta.labels, fldPath.child('labels')), ...validateAnnotations(meta.annotations, fldPath.child('annotations')), ...validatePodSpec(t.spec, fldPath.child('spec').toString())]
}
