/**
 * Validation of the workloads' selector and pod template, after the reference's
 * `pkg/apis/apps/validation` (deployments, replica sets, stateful sets, daemon sets; the core
 * group's replication controllers share it): a selector that is not empty and matches the
 * template's labels, and a valid pod template.
 */
import { type KubeObject, isPlainObject } from '../registry/object.js'
import { invalidValue, requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'
import { validatePodSpecAtPath } from './core.js'
import { arr, obj } from './helpers.js'

export function validateWorkload(o: KubeObject): Cause[] {
  const spec = obj(o.spec)
  const selector = spec.selector
  if (!isPlainObject(selector)) return [requiredValue('spec.selector', '')]
  const matchLabels = obj(selector.matchLabels)
  if (Object.keys(matchLabels).length === 0 && arr(selector.matchExpressions).length === 0) {
    return [{ reason: 'FieldValueInvalid', message: 'Invalid value: "null": empty selector is invalid for deployment', field: 'spec.selector' }]
  }
  const labels = obj(obj(obj(spec.template).metadata).labels)
  const causes: Cause[] = []
  if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v)) {
    causes.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'))
  }
  return [...causes, ...validatePodSpecAtPath(obj(spec.template).spec, 'spec.template.spec')]
}
