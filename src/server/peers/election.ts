/**
 * The choice of a leader among LeaseCandidates (pkg/controlplane/controller/leaderelection/
 * election.go): the strategy is the one of the candidate with the highest binary version
 * (two at the same binary version asking for different strategies is an error), and under
 * `OldestEmulationVersion` the leader is the valid candidate with the lowest emulation
 * version, then the lowest binary version, then the oldest.
 */
import type { KubeObject } from '../api/registry/object.js'
import { timeOf } from './lease-times.js'

export const OLDEST_EMULATION_VERSION = 'OldestEmulationVersion'
/** leaseCandidateValidDuration: a candidate not renewed for this long is expired (and collected). */
export const LEASE_CANDIDATE_VALID_MS = 30 * 60_000

export interface CandidateSpec {
  leaseName?: string
  binaryVersion?: string
  emulationVersion?: string
  strategy?: string
  renewTime?: string
  pingTime?: string
}

export function candidateSpec(candidate: KubeObject): CandidateSpec {
  return ((candidate as { spec?: CandidateSpec }).spec ?? {}) as CandidateSpec
}

type Semver = [number, number, number, string]

/** semver.ParseTolerant: an optional `v`, missing minor and patch as 0; undefined when not a version. */
export function parseTolerant(text: string | undefined): Semver | undefined {
  if (text === undefined) return undefined
  const m = /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim())
  if (!m) return undefined
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ?? '']
}

/** semver's Compare (a pre-release sorts before its release; pre-releases by their text parts). */
export function compareVersions(a: Semver, b: Semver): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1
  if (a[3] === b[3]) return 0
  if (a[3] === '') return 1
  if (b[3] === '') return -1
  const pa = a[3].split('.')
  const pb = b[3].split('.')
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1
    if (pb[i] === undefined) return 1
    const na = /^\d+$/.test(pa[i]!) ? Number(pa[i]) : undefined
    const nb = /^\d+$/.test(pb[i]!) ? Number(pb[i]) : undefined
    if (na !== undefined && nb !== undefined) {
      if (na !== nb) return na < nb ? -1 : 1
    } else if (na !== undefined) return -1
    else if (nb !== undefined) return 1
    else if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1
  }
  return 0
}

const ZERO: Semver = [0, 0, 0, '']
const versionOrZero = (text: string | undefined): Semver => parseTolerant(text) ?? ZERO

/** compare: below 0 when `lhs` is the better leader, above 0 when `rhs` is. */
export function compareCandidates(lhs: KubeObject, rhs: KubeObject): number {
  let result = compareVersions(versionOrZero(candidateSpec(lhs).emulationVersion), versionOrZero(candidateSpec(rhs).emulationVersion))
  if (result === 0) result = compareVersions(versionOrZero(candidateSpec(lhs).binaryVersion), versionOrZero(candidateSpec(rhs).binaryVersion))
  if (result === 0) return (timeOf(lhs.metadata.creationTimestamp) ?? 0) > (timeOf(rhs.metadata.creationTimestamp) ?? 0) ? 1 : -1
  return result
}

/** pickBestLeaderOldestEmulationVersion. */
export function pickBestLeaderOldestEmulationVersion(candidates: readonly KubeObject[]): KubeObject | undefined {
  let electee: KubeObject | undefined
  for (const c of candidates) {
    const spec = candidateSpec(c)
    if (!parseTolerant(spec.emulationVersion) || !parseTolerant(spec.binaryVersion)) continue
    if (electee === undefined || compareCandidates(electee, c) > 0) electee = c
  }
  return electee
}

/** pickBestStrategy: the strategy of the candidate with the highest binary version. */
export function pickBestStrategy(candidates: readonly KubeObject[]): string {
  if (candidates.length === 0) throw new Error('no candidates')
  let name = candidates[0]!.metadata.name ?? ''
  let strategy = candidateSpec(candidates[0]!).strategy ?? ''
  let highest = versionOrZero(candidateSpec(candidates[0]!).binaryVersion)
  for (const c of candidates.slice(1)) {
    const spec = candidateSpec(c)
    const version = versionOrZero(spec.binaryVersion)
    const result = compareVersions(highest, version)
    if (result < 0) {
      strategy = spec.strategy ?? ''
      highest = version
      name = c.metadata.name ?? ''
    } else if (result === 0 && (spec.strategy ?? '') !== strategy) {
      throw new Error(`candidates "${name}", "${c.metadata.name}" at same binary version but received differing strategies ${strategy}, ${spec.strategy ?? ''}`)
    }
  }
  return strategy
}

/** isLeaseCandidateExpired. */
export function isLeaseCandidateExpired(candidate: KubeObject, now = Date.now()): boolean {
  const renewed = timeOf(candidateSpec(candidate).renewTime)
  return renewed === undefined || renewed + LEASE_CANDIDATE_VALID_MS < now
}
