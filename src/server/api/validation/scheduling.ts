/** Validation of the scheduling.k8s.io API group, after the reference's `pkg/apis/scheduling/validation`: a priority class needs its value. */
import type { KubeObject } from '../registry/object.js'
import { requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'

export function validatePriorityClass(o: KubeObject): Cause[] {
  return typeof o.value === 'number' ? [] : [requiredValue('value', '')]
}
