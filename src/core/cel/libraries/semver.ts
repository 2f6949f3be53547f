/**
 * The Kubernetes semver library (apiserver/pkg/cel/library/semverlib.go): semver() and
 * isSemver() (with the optional normalising flag: a leading "v", missing minor or patch, and
 * leading zeros are accepted), major(), minor(), patch() and the comparisons. Parsing and
 * ordering follow blang/semver v4, which the reference uses, including its error messages and
 * the Semantic Versioning 2.0 precedence of pre-releases (build metadata is ignored).
 */
import type { Environment } from '@marcbachmann/cel-js'
import { EvaluationError } from '@marcbachmann/cel-js'

const NUMBERS = /^[0-9]+$/
const ALPHANUMERIC = /^[0-9A-Za-z-]+$/

export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    /** Pre-release identifiers: numbers as bigint, the others as strings. */
    readonly pre: ReadonlyArray<bigint | string>,
  ) {}

  compare(other: CelSemver): number {
    for (const [a, b] of [
      [this.major, other.major],
      [this.minor, other.minor],
      [this.patch, other.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1
    }
    // A version without a pre-release is greater than one with.
    if (this.pre.length === 0 && other.pre.length === 0) return 0
    if (this.pre.length === 0) return 1
    if (other.pre.length === 0) return -1
    for (let i = 0; i < Math.min(this.pre.length, other.pre.length); i++) {
      const a = this.pre[i]!
      const b = other.pre[i]!
      if (a === b) continue
      if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : 1
      if (typeof a === 'bigint') return -1
      if (typeof b === 'bigint') return 1
      return a < b ? -1 : 1
    }
    return this.pre.length === other.pre.length ? 0 : this.pre.length < other.pre.length ? -1 : 1
  }
}

const hasLeadingZeroes = (s: string) => s.length > 1 && s.startsWith('0')

function number(text: string, which: 'Major' | 'Minor' | 'Patch'): bigint {
  if (!NUMBERS.test(text)) throw new Error(`Invalid character(s) found in ${which.toLowerCase()} number ${JSON.stringify(text)}`)
  if (hasLeadingZeroes(text)) throw new Error(`${which} number must not contain leading zeroes ${JSON.stringify(text)}`)
  return BigInt(text)
}

/** blang/semver's Parse. */
export function parseSemver(text: string): CelSemver {
  if (text.length === 0) throw new Error('Version string empty')
  const parts = splitN(text, '.', 3)
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found')
  const major = number(parts[0]!, 'Major')
  const minor = number(parts[1]!, 'Minor')
  let patchText = parts[2]!
  let build: string[] = []
  let pre: string[] = []
  const plus = patchText.indexOf('+')
  if (plus !== -1) {
    build = patchText.slice(plus + 1).split('.')
    patchText = patchText.slice(0, plus)
  }
  const dash = patchText.indexOf('-')
  if (dash !== -1) {
    pre = patchText.slice(dash + 1).split('.')
    patchText = patchText.slice(0, dash)
  }
  const patch = number(patchText, 'Patch')
  const prerelease = pre.map((p) => {
    if (p === '') throw new Error('Prerelease is empty')
    if (NUMBERS.test(p)) {
      if (hasLeadingZeroes(p)) throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`)
      return BigInt(p)
    }
    if (!ALPHANUMERIC.test(p)) throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`)
    return p
  })
  for (const b of build) {
    if (b === '') throw new Error('Build meta data is empty')
    if (!ALPHANUMERIC.test(b)) throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`)
  }
  return new CelSemver(major, minor, patch, prerelease)
}

/** Go's strings.SplitN. */
function splitN(text: string, sep: string, n: number): string[] {
  const out: string[] = []
  let rest = text
  while (out.length < n - 1) {
    const at = rest.indexOf(sep)
    if (at === -1) break
    out.push(rest.slice(0, at))
    rest = rest.slice(at + sep.length)
  }
  out.push(rest)
  return out
}

/** The library's normalizeAndParse: no "v", zeros filled in, leading zeros removed. */
export function normalizeAndParseSemver(input: string): CelSemver {
  const parts = splitN(input.startsWith('v') ? input.slice(1) : input, '.', 3).map((p) => {
    if (p.length <= 1) return p
    let trimmed = p.replace(/^0+/, '')
    if (trimmed.length === 0 || !/^[0-9]/.test(trimmed)) trimmed = `0${trimmed}`
    return trimmed
  })
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) throw new Error('short version cannot contain PreRelease/Build meta data')
    while (parts.length < 3) parts.push('0')
  }
  return parseSemver(parts.join('.'))
}

function mustSemver(text: string, normalize: boolean): CelSemver {
  try {
    return normalize ? normalizeAndParseSemver(text) : parseSemver(text)
  } catch (err) {
    throw new EvaluationError((err as Error).message)
  }
}

function isSemver(text: string, normalize: boolean): boolean {
  try {
    mustSemver(text, normalize)
    return true
  } catch {
    return false
  }
}

export function registerSemverLibrary(env: Environment): void {
  env.registerType('kubernetes.Semver', CelSemver as never)
  env.registerFunction('semver(string): kubernetes.Semver', (text: string) => mustSemver(text, false))
  env.registerFunction('semver(string, bool): kubernetes.Semver', (text: string, normalize: boolean) => mustSemver(text, normalize))
  env.registerFunction('isSemver(string): bool', (text: string) => isSemver(text, false))
  env.registerFunction('isSemver(string, bool): bool', (text: string, normalize: boolean) => isSemver(text, normalize))
  env.registerFunction('kubernetes.Semver.major(): int', (v: CelSemver) => v.major)
  env.registerFunction('kubernetes.Semver.minor(): int', (v: CelSemver) => v.minor)
  env.registerFunction('kubernetes.Semver.patch(): int', (v: CelSemver) => v.patch)
  env.registerFunction('kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool', (a: CelSemver, b: CelSemver) => a.compare(b) === 1)
  env.registerFunction('kubernetes.Semver.isLessThan(kubernetes.Semver): bool', (a: CelSemver, b: CelSemver) => a.compare(b) === -1)
  env.registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: CelSemver, b: CelSemver) => BigInt(a.compare(b)))
}
