/**
 * Validation of the coordination.k8s.io API group, after the reference's
 * `pkg/apis/coordination/validation/validation.go`: a Lease's duration is positive, its
 * transitions not negative, a preferred holder only with a holder, a known strategy; a
 * LeaseCandidate's (beta) lease name, binary and emulation versions (semantic versions, the
 * binary not older), strategy, and its lease name immutable.
 */
import type { KubeObject } from '../registry/object.js'
import { type CauseLike, Path, forbidden, invalid, notSupported } from './field/index.js'
import { obj, str } from './helpers.js'
import { isConfigMapKey, isQualifiedName } from './strings.js'
import { required } from './field/index.js'
import { validateImmutableField } from './objectmeta.js'

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

/** blang/semver's Parse: major.minor.patch without leading zeros, optional pre-release and build. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/

interface Semver {
  core: [number, number, number]
  pre: string[]
}

function parseSemver(v: string): Semver | undefined {
  const m = SEMVER.exec(v)
  if (!m) return undefined
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split('.') : [] }
}

/** Semver precedence: the core numbers, then a version with a pre-release before one without. */
function semverLess(a: Semver, b: Semver): boolean {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! < b.core[i]!
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length > 0 && b.pre.length === 0
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!
    const y = b.pre[i]!
    if (x === y) continue
    const xn = /^\d+$/.test(x)
    const yn = /^\d+$/.test(y)
    if (xn && yn) return Number(x) < Number(y)
    if (xn !== yn) return xn
    return x < y
  }
  return a.pre.length < b.pre.length
}

/** The reference's name rule for LeaseCandidates: a config map key. */
export const leaseCandidateName = (name: string): string[] => isConfigMapKey(name)

/** ValidateLeaseCandidateSpec; the reference's strategy path repeats `strategy`. */
export function validateLeaseCandidate(o: KubeObject): ErrorList {
  const spec = obj(o.spec)
  const p = Path.of('spec')
  const errs: ErrorList = []
  if (str(spec.leaseName) === '') errs.push(required(p.child('leaseName')))
  const emulation = str(spec.emulationVersion)
  let ev: Semver = { core: [0, 0, 0], pre: [] }
  if (emulation !== '') {
    const parsed = parseSemver(emulation)
    if (parsed) ev = parsed
    else errs.push(invalid(p.child('emulationVersion'), emulation, 'must be a valid semantic version'))
  }
  const binary = str(spec.binaryVersion)
  let bv: Semver = { core: [0, 0, 0], pre: [] }
  if (binary === '') errs.push(required(p.child('binaryVersion')))
  else {
    const parsed = parseSemver(binary)
    if (parsed) bv = parsed
    else errs.push(invalid(p.child('binaryVersion'), binary, 'must be a valid semantic version'))
  }
  if (binary !== '' && emulation !== '' && semverLess(bv, ev)) errs.push(invalid(p.child('binaryVersion'), binary, 'must be greater than or equal to `emulationVersion`'))
  const strategy = str(spec.strategy)
  if (strategy === '') errs.push(required(p.child('strategy')))
  else {
    if (strategy === 'OldestEmulationVersion' && ev.core.every((n) => n === 0) && ev.pre.length === 0) {
      errs.push(required(p.child('emulationVersion'), "must be specified when `strategy` is 'OldestEmulationVersion'"))
    }
    errs.push(...validateCoordinatedLeaseStrategy(strategy, p.child('strategy').child('strategy')))
  }
  return errs
}

/** ValidateLeaseCandidateUpdate: the spec's rules, and the lease name immutable. */
export function validateLeaseCandidateUpdate(o: KubeObject, old: KubeObject): ErrorList {
  return [...validateLeaseCandidate(o), ...validateImmutableField(str(obj(o.spec).leaseName), str(obj(old.spec).leaseName), Path.of('spec', 'leaseName'))]
}
