/**
 * What a Pod Security check is (the reference's policy/checks.go and helpers.go): an id, the
 * level it belongs to, and its revisions by the first policy version each applies to; a
 * revision looks at a pod's metadata and spec (the v1 JSON form) and allows it or says why
 * not. Also the reference's small text helpers every check's detail is written with.
 */
import type { Level, Version } from './levels.js'

export type Obj = Record<string, unknown>

/** A pod's metadata and spec, as the pod or a workload's template carries them. */
export interface PodLike {
  readonly metadata: Obj
  readonly spec: Obj
}

export interface CheckResult {
  readonly allowed: boolean
  /** Succinct, always shown: `host ports`, `privileged`. */
  readonly forbiddenReason?: string
  /** The specific values, shown in parentheses after the reason for a single object. */
  readonly forbiddenDetail?: string
}

export const ALLOWED: CheckResult = { allowed: true }

export type CheckPod = (pod: PodLike) => CheckResult

export interface VersionedCheck {
  /** The first policy version this revision applies to. */
  readonly minimumVersion: Version
  readonly checkPod: CheckPod
  /** Baseline checks this restricted revision replaces when it runs. */
  readonly overrideCheckIds?: readonly string[]
}

export interface Check {
  readonly id: string
  readonly level: Exclude<Level, 'privileged'>
  /** Revisions by strictly increasing minimum version. */
  readonly versions: readonly VersionedCheck[]
}

export function forbidden(reason: string, detail: string): CheckResult {
  return { allowed: false, forbiddenReason: reason, forbiddenDetail: detail }
}

/** `"a", "b"` (the reference's joinQuote). */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural
}

/** `container "a"` / `containers "a", "b"`. */
export function containersNamed(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`
}

/** Sorted distinct strings (the reference's sets.List). */
export function sortedSet(items: Iterable<string>): string[] {
  return [...new Set(items)].sort()
}

export function obj(value: unknown): Obj | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined
}

function list(value: unknown): Obj[] {
  return Array.isArray(value) ? value.map((v) => obj(v) ?? {}) : []
}

/**
 * Every container of the spec, init containers first, then containers, then ephemeral ones
 * (the reference's visitContainers order).
 */
export function containers(spec: Obj): Obj[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]
}

export function containerName(container: Obj): string {
  return typeof container.name === 'string' ? container.name : ''
}

export function securityContext(holder: Obj): Obj | undefined {
  return obj(holder.securityContext)
}

export function volumes(spec: Obj): Obj[] {
  return list(spec.volumes)
}

export function annotations(metadata: Obj): Record<string, string> {
  const a = obj(metadata.annotations)
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(a ?? {})) if (typeof v === 'string') out[k] = v
  return out
}

/** A Windows pod (spec.os.name), exempt from some restricted checks from v1.25. */
export function isWindowsPod(spec: Obj): boolean {
  return obj(spec.os)?.name === 'windows'
}

/** A pod in a user namespace (hostUsers: false), relaxed by some checks from v1.35. */
export function inUserNamespace(spec: Obj): boolean {
  return spec.hostUsers === false
}
