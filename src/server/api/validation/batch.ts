/** Validation of the batch API group, after the reference's `pkg/apis/batch/validation`: a cron job needs its schedule. */
import type { KubeObject } from '../registry/object.js'
import { requiredValue } from '../registry/strategy.js'
import type { Cause } from '../status-errors.js'
import { obj, str } from './helpers.js'

export function validateCronJob(o: KubeObject): Cause[] {
  return str(obj(o.spec).schedule) ? [] : [requiredValue('spec.schedule', '')]
}
