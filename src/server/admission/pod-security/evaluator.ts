/**
 * The evaluator (the reference's policy/registry.go and checks.go): every check by level and
 * policy version, computed once. A version newer than the newest check revision (and `latest`)
 * evaluates as that newest one; restricted runs the baseline checks its own checks do not
 * replace, then its own; results come baseline ids first, then restricted ones, each sorted
 * (the reference's order, which its messages follow).
 */
import { checkAllowPrivilegeEscalation } from './check-allow-privilege-escalation.js'
import { checkAppArmorProfile } from './check-app-armor.js'
import { checkCapabilitiesBaseline, checkCapabilitiesRestricted } from './check-capabilities.js'
import { checkHostNamespaces } from './check-host-namespaces.js'
import { checkHostPathVolumes } from './check-host-path-volumes.js'
import { checkHostPorts } from './check-host-ports.js'
import { checkHostProbesAndHostLifecycle } from './check-host-probes.js'
import { checkPrivileged } from './check-privileged.js'
import { checkProcMountBaseline, checkProcMountRestricted } from './check-proc-mount.js'
import { checkRestrictedVolumes } from './check-restricted-volumes.js'
import { checkRunAsNonRoot } from './check-run-as-non-root.js'
import { checkRunAsUser } from './check-run-as-user.js'
import { checkSELinuxOptions } from './check-se-linux.js'
import { checkSeccompProfileBaseline, checkSeccompProfileRestricted } from './check-seccomp.js'
import { checkSysctls } from './check-sysctls.js'
import { checkWindowsHostProcess } from './check-windows-host-process.js'
import type { Check, CheckPod, CheckResult, PodLike, VersionedCheck } from './check.js'
import { type LevelVersion, older } from './levels.js'

export const DEFAULT_CHECKS: readonly Check[] = [
  checkAllowPrivilegeEscalation,
  checkAppArmorProfile,
  checkCapabilitiesBaseline,
  checkCapabilitiesRestricted,
  checkHostNamespaces,
  checkHostPathVolumes,
  checkHostPorts,
  checkHostProbesAndHostLifecycle,
  checkPrivileged,
  checkProcMountBaseline,
  checkProcMountRestricted,
  checkRestrictedVolumes,
  checkRunAsNonRoot,
  checkRunAsUser,
  checkSELinuxOptions,
  checkSeccompProfileBaseline,
  checkSeccompProfileRestricted,
  checkSysctls,
  checkWindowsHostProcess,
]

/** The revision of `check` in effect at minor version `minor`, if any. */
function revisionAt(check: Check, minor: number): VersionedCheck | undefined {
  let found: VersionedCheck | undefined
  for (const revision of check.versions) if (revision.minimumVersion.minor <= minor) found = revision
  return found
}

export class Evaluator {
  /** The newest minor any check has a revision for. */
  readonly maxMinor: number
  private readonly baseline: CheckPod[][] = []
  private readonly restricted: CheckPod[][] = []

  constructor(checks: readonly Check[] = DEFAULT_CHECKS) {
    this.maxMinor = Math.max(...checks.map((c) => c.versions[c.versions.length - 1]!.minimumVersion.minor))
    // Go compares strings bytewise, as the default sort does for these ASCII ids.
    const ordered = [...checks.filter((c) => c.level === 'baseline').sort(byId), ...checks.filter((c) => c.level === 'restricted').sort(byId)]
    for (let minor = 0; minor <= this.maxMinor; minor++) {
      const overridden = new Set<string>()
      for (const check of ordered) if (check.level === 'restricted') for (const id of revisionAt(check, minor)?.overrideCheckIds ?? []) overridden.add(id)
      const baseline: CheckPod[] = []
      const restricted: CheckPod[] = []
      for (const check of ordered) {
        const revision = revisionAt(check, minor)
        if (!revision) continue
        if (check.level === 'baseline') baseline.push(revision.checkPod)
        if (check.level === 'restricted' || !overridden.has(check.id)) restricted.push(revision.checkPod)
      }
      this.baseline.push(baseline)
      this.restricted.push(restricted)
    }
  }

  /** The results of every check of the level at the version (none for privileged). */
  evaluatePod(lv: LevelVersion, pod: PodLike): CheckResult[] {
    if (lv.level === 'privileged') return []
    const minor = older({ minor: this.maxMinor, latest: false }, lv.version) ? this.maxMinor : lv.version.minor
    const checks = (lv.level === 'baseline' ? this.baseline : this.restricted)[minor] ?? []
    return checks.map((check) => check(pod))
  }
}

function byId(a: Check, b: Check): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** The forbidden results of a pod's evaluation (the reference's AggregateCheckResult). */
export class AggregateCheckResult {
  readonly reasons: string[] = []
  readonly details: string[] = []

  constructor(results: readonly CheckResult[]) {
    for (const result of results) {
      if (result.allowed) continue
      this.reasons.push(result.forbiddenReason || 'unknown forbidden reason')
      this.details.push(result.forbiddenDetail ?? '')
    }
  }

  get allowed(): boolean {
    return this.reasons.length === 0
  }

  /** `host ports, privileged`: the reasons alone. */
  forbiddenReason(): string {
    return this.reasons.join(', ')
  }

  /** `hostPort (container "a" uses hostPort 80), privileged (...)`: each reason with its detail. */
  forbiddenDetail(): string {
    return this.reasons.map((reason, i) => (this.details[i] ? `${reason} (${this.details[i]})` : reason)).join(', ')
  }
}
