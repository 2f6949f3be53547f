/**
 * Pod Security levels, policy versions and a namespace's policy (the reference's
 * `k8s.io/pod-security-admission/api`: constants.go, helpers.go): the namespace labels, how a
 * label value parses (an invalid level is `restricted`, an invalid version `latest`, each with
 * the reference's error), and the policy a namespace's labels make over the defaults.
 */

export type Level = 'privileged' | 'baseline' | 'restricted'

const VALID_LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted']

/** A policy version: `latest`, or v1.<minor>. */
export interface Version {
  readonly minor: number
  readonly latest: boolean
}

export const LATEST: Version = { minor: 0, latest: true }

export function majorMinor(minor: number): Version {
  return { minor, latest: false }
}

export function versionString(v: Version): string {
  return v.latest ? 'latest' : `v1.${v.minor}`
}

/** Whether `v` is older than `other`; latest is newer than every version. */
export function older(v: Version, other: Version): boolean {
  if (v.latest) return false
  if (other.latest) return true
  return v.minor < other.minor
}

export function sameVersion(a: Version, b: Version): boolean {
  return a.latest === b.latest && (a.latest || a.minor === b.minor)
}

export interface LevelVersion {
  readonly level: Level
  readonly version: Version
}

/** `restricted:latest`, `baseline:v1.25`. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && sameVersion(a.version, b.version)
}

export interface Policy {
  readonly enforce: LevelVersion
  readonly audit: LevelVersion
  readonly warn: LevelVersion
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/'
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`

export type Parsed<T> = { value: T; error?: string }

/** The level to evaluate; anything else is `restricted` with the reference's error. */
export function parseLevel(level: string): Parsed<Level> {
  if ((VALID_LEVELS as readonly string[]).includes(level)) return { value: level as Level }
  return { value: 'restricted', error: `must be one of ${VALID_LEVELS.join(', ')}` }
}

const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/

/** `latest` or `v1.x`; anything else is latest with the reference's error. */
export function parseVersion(version: string): Parsed<Version> {
  if (version === 'latest') return { value: LATEST }
  const match = VERSION_PATTERN.exec(version)
  if (!match) return { value: LATEST, error: 'must be "latest" or "v1.x"' }
  const minor = Number(match[1])
  // The reference parses into a Go int: a minor beyond it fails to parse.
  if (!Number.isSafeInteger(minor)) return { value: LATEST, error: 'must be "latest" or "v1.x"' }
  return { value: majorMinor(minor) }
}

/** One label that did not parse: the reference's field.Invalid on metadata.labels[<key>]. */
export interface LabelError {
  readonly label: string
  readonly value: string
  readonly detail: string
}

/**
 * The policy a namespace's labels make over `defaults` (the reference's PolicyToEvaluate): a
 * policy always comes back, with the labels that did not parse. An invalid audit or warn level
 * fails open (privileged); an invalid enforce level fails closed (restricted).
 */
export function policyToEvaluate(labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy; errors: LabelError[] } {
  const errors: LabelError[] = []
  if (!labels || Object.keys(labels).length === 0) return { policy: defaults, errors }
  const mode = (current: LevelVersion, levelLabel: string, versionLabel: string, failOpen: boolean): LevelVersion => {
    let { level, version } = current
    const levelValue = labels[levelLabel]
    if (levelValue !== undefined) {
      const parsed = parseLevel(levelValue)
      level = parsed.value
      if (parsed.error) {
        errors.push({ label: levelLabel, value: levelValue, detail: parsed.error })
        if (failOpen) level = 'privileged'
      }
    }
    const versionValue = labels[versionLabel]
    if (versionValue !== undefined) {
      const parsed = parseVersion(versionValue)
      version = parsed.value
      if (parsed.error) errors.push({ label: versionLabel, value: versionValue, detail: parsed.error })
    }
    return { level, version }
  }
  const enforce = mode(defaults.enforce, ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL, false)
  const audit = mode(defaults.audit, AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL, true)
  const warn = mode(defaults.warn, WARN_LEVEL_LABEL, WARN_VERSION_LABEL, true)
  return { policy: { enforce, audit, warn }, errors }
}

/** The reference's CompareLevels: -1 when a is less strict than b, 1 when stricter, 0 equal. */
export function compareLevels(a: Level, b: Level): number {
  if (a === b) return 0
  if (a === 'privileged') return -1
  if (a === 'restricted') return 1
  return b === 'privileged' ? 1 : -1
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged'
}

/**
 * The reference's Policy.Equivalent: the same levels, and the same versions where the level is
 * not privileged (a privileged policy's version means nothing).
 */
export function equivalentPolicies(a: Policy, b: Policy): boolean {
  const same = (x: LevelVersion, y: LevelVersion) => x.level === y.level && (x.level === 'privileged' || sameVersion(x.version, y.version))
  return same(a.enforce, b.enforce) && same(a.audit, b.audit) && same(a.warn, b.warn)
}
