/**
 * Validation of the coordination.k8s.io API group, after the reference's
 * `pkg/apis/coordination/validation/validation.go`: a Lease's duration is positive, its
 * transitions not negative, a preferred holder only with a holder, a known strategy.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, forbidden, invalid, notSupported } from './field/index.js'
import { obj } from './helpers.js'
import { isQualifiedName } from './strings.js'

type ErrorList = CauseLike[]

const LEASE_STRATEGIES = ['OldestEmulationVersion']

/** ValidateCoordinatedLeaseStrategy: a Kubernetes strategy, or a domain-prefixed one. */
function validateCoordinatedLeaseStrategy(strategy: string, fldPath: Path): ErrorList {
  if (!strategy.includes('/')) return LEASE_STRATEGIES.includes(strategy) ? [] : [notSupported(fldPath, strategy, LEASE_STRATEGIES)]
  return isQualifiedName(strategy).map((m) => invalid(fldPath, strategy, m))
}

/** ValidateLeaseSpec. */
export function validateLease(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const p = Path.of('spec')
  const errs: ErrorList = []
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) errs.push(invalid(p.child('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'))
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) errs.push(invalid(p.child('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'))
  if (typeof spec.strategy === 'string') errs.push(...validateCoordinatedLeaseStrategy(spec.strategy, p.child('strategy')))
  const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : ''
  if (typeof spec.preferredHolder === 'string' && spec.preferredHolder !== '' && holder === '') {
    errs.push(forbidden(p.child('preferredHolder'), 'may only be specified if `holderIdentity` is specified'))
  }
  return errs
}
