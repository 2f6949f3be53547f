/**
 * The LimitRanger's constraints (the reference's minConstraint, maxRequestConstraint,
 * maxConstraint and limitRequestRatioConstraint): each returns the reference's message when
 * the request or limit breaks the enforced value, undefined otherwise. Values compare as the
 * reference's requestLimitEnforcedValues does: in thousandths when none overflows, else whole
 * units, both rounded up.
 */
import { type Quantity, ZERO_QUANTITY, quantityString } from '../../api/validation/quantity.js'
import { type ResourceList, scaledValue } from './resource-list.js'

/** resource.MaxMilliValue: the largest value whose thousandths fit an int64. */
const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n

/** The three values at a common precision. */
function comparable(request: Quantity, limit: Quantity, enforced: Quantity): [bigint, bigint, bigint] {
  const units = [request, limit, enforced].map((q) => scaledValue(q, 0))
  if (units.every((v) => v <= MAX_MILLI_VALUE)) return [scaledValue(request, 3), scaledValue(limit, 3), scaledValue(enforced, 3)]
  return units as [bigint, bigint, bigint]
}

export function minConstraint(limitType: string, resource: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(resource)
  const lim = limits.get(resource)
  const [observedReq, observedLim, enforcedValue] = comparable(req ?? ZERO_QUANTITY, lim ?? ZERO_QUANTITY, enforced)
  const min = quantityString(enforced)
  if (!req) return `minimum ${resource} usage per ${limitType} is ${min}.  No request is specified`
  if (observedReq < enforcedValue) return `minimum ${resource} usage per ${limitType} is ${min}, but request is ${quantityString(req)}`
  if (lim && observedLim < enforcedValue) return `minimum ${resource} usage per ${limitType} is ${min}, but limit is ${quantityString(lim)}`
  return undefined
}

/** The max of a kind whose limits are not user input (PersistentVolumeClaim): requests only. */
export function maxRequestConstraint(limitType: string, resource: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(resource)
  const [observedReq, , enforcedValue] = comparable(req ?? ZERO_QUANTITY, ZERO_QUANTITY, enforced)
  const max = quantityString(enforced)
  if (!req) return `maximum ${resource} usage per ${limitType} is ${max}.  No request is specified`
  if (observedReq > enforcedValue) return `maximum ${resource} usage per ${limitType} is ${max}, but request is ${quantityString(req)}`
  return undefined
}

export function maxConstraint(limitType: string, resource: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(resource)
  const lim = limits.get(resource)
  const [observedReq, observedLim, enforcedValue] = comparable(req ?? ZERO_QUANTITY, lim ?? ZERO_QUANTITY, enforced)
  const max = quantityString(enforced)
  if (!lim) return `maximum ${resource} usage per ${limitType} is ${max}.  No limit is specified`
  if (observedLim > enforcedValue) return `maximum ${resource} usage per ${limitType} is ${max}, but limit is ${quantityString(lim)}`
  if (req && observedReq > enforcedValue) return `maximum ${resource} usage per ${limitType} is ${max}, but request is ${quantityString(req)}`
  return undefined
}

export function limitRequestRatioConstraint(limitType: string, resource: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(resource)
  const lim = limits.get(resource)
  const [observedReq, observedLim] = comparable(req ?? ZERO_QUANTITY, lim ?? ZERO_QUANTITY, enforced)
  const ratio = quantityString(enforced)
  if (!req || observedReq === 0n) return `${resource} max limit to request ratio per ${limitType} is ${ratio}, but no request is specified or request is 0`
  if (!lim || observedLim === 0n) return `${resource} max limit to request ratio per ${limitType} is ${ratio}, but no limit is specified or limit is 0`
  // As the reference: float64 division, compared in thousandths when the enforced value allows.
  let observedRatio = Number(observedLim) / Number(observedReq)
  const display = observedRatio
  let maxRatio = Number(scaledValue(enforced, 0))
  if (scaledValue(enforced, 0) <= MAX_MILLI_VALUE) {
    observedRatio *= 1000
    maxRatio = Number(scaledValue(enforced, 3))
  }
  if (observedRatio > maxRatio) return `${resource} max limit to request ratio per ${limitType} is ${ratio}, but provided ratio is ${display.toFixed(6)}`
  return undefined
}

/**
 * utilerrors.NewAggregate(errs).Error(): one message alone, several deduplicated in brackets
 * (or alone again when they were all the same).
 */
export function aggregate(messages: readonly string[]): string | undefined {
  if (messages.length === 0) return undefined
  if (messages.length === 1) return messages[0]
  const distinct = [...new Set(messages)]
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`
}
