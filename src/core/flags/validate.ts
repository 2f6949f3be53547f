/**
 * Checking a server command line as the reference server does at start-up: the same phases
 * in the same order, each phase's checks in the reference's order, and a failing phase stops
 * the later ones. `client flags validate` and `client server start` both call this.
 */
import { CLUSTER_START_OPTIONS, SERVER_OPTIONS } from '../options/catalogue/index.js'
import { OptionIndex, type ParsedCommandLine, parseCommandLine } from './command-line.js'
import { ValidationContext, type ValidationTarget } from './context.js'
import type { Finding, Phase } from './finding.js'
import { type CisResult, runCisProfile } from './cis.js'
import { admissionRules } from './rules/admission.js'
import { auditRules } from './rules/audit.js'
import { authenticationRules, serviceAccountRules, tokenExpirationRules } from './rules/authentication.js'
import { authorizationDefaultRules, authorizationRules } from './rules/authorization.js'
import { clusterRules } from './rules/cluster.js'
import { configFileRules } from './rules/config-files.js'
import { flowControlConfigRules, flowControlRules } from './rules/flow-control.js'
import { loggingRules } from './rules/logging.js'
import { miscRules } from './rules/misc.js'
import { networkingRules, serviceRangeCompleteRules } from './rules/networking.js'
import { runtimeConfigRules, runtimeConfigValueRules } from './rules/runtime-config.js'
import { secureServingRules, tlsConfigRules } from './rules/serving.js'
import { serverRunRules } from './rules/server-run.js'
import { storageRules, watchCacheRules } from './rules/storage.js'
import { type Rule, runRules } from './rule.js'
import { versionRangeRules, versionRules } from './rules/versions.js'

/** The name the reference's messages give the program (`"<program>" does not take any arguments`). */
const SERVER_PROGRAM = 'client server start'
const CLUSTER_PROGRAM = 'client cluster start'

const PHASES: ReadonlyArray<readonly [Phase, readonly Rule[]]> = [
  ['versions', versionRules],
  ['logging', loggingRules],
  ['complete', [...serviceRangeCompleteRules, ...tokenExpirationRules, ...watchCacheRules, ...authorizationDefaultRules]],
  [
    'validate',
    [
      ...versionRangeRules,
      ...serverRunRules,
      ...storageRules,
      ...flowControlRules,
      ...secureServingRules,
      ...authenticationRules.filter((r) => r.phase === 'validate'),
      ...authorizationRules,
      ...auditRules,
      ...admissionRules,
      ...runtimeConfigRules,
      ...serviceAccountRules,
      ...miscRules,
      ...networkingRules,
    ],
  ],
  ['config', [...flowControlConfigRules, ...tlsConfigRules, ...authenticationRules.filter((r) => r.phase === 'config'), ...configFileRules, ...runtimeConfigValueRules]],
]

interface ValidateOptions {
  target?: ValidationTarget
  /** `cis`: add the security-posture findings of the CIS benchmark checks. */
  profile?: 'cis'
  /** `cluster`: a line for `client cluster start` (the server's options and the cluster's). */
  command?: 'server' | 'cluster'
}

export interface ValidationReport {
  /** False when any error was found. */
  valid: boolean
  findings: Finding[]
  /**
   * What the server prints when it refuses to start: the first failing phase's message, with
   * several errors of one phase joined as `[m1, m2]` as the reference aggregates them.
   */
  serverMessage?: string
  /** The phase that failed first. */
  failedPhase?: Phase
  cis?: CisResult[]
  parsed: ParsedCommandLine
  context?: ValidationContext
}

let serverIndex: OptionIndex | undefined
function serverOptionIndex(): OptionIndex {
  serverIndex ??= new OptionIndex(SERVER_OPTIONS)
  return serverIndex
}
let clusterIndex: OptionIndex | undefined
function clusterOptionIndex(): OptionIndex {
  clusterIndex ??= new OptionIndex(CLUSTER_START_OPTIONS)
  return clusterIndex
}

export function validateServerCommandLine(argv: readonly string[], options: ValidateOptions = {}): ValidationReport {
  const cluster = options.command === 'cluster'
  const index = cluster ? clusterOptionIndex() : serverOptionIndex()
  const parsed = parseCommandLine(argv, index, cluster ? CLUSTER_PROGRAM : SERVER_PROGRAM)
  const findings = [...parsed.findings]
  const report: ValidationReport = { valid: true, findings, parsed }

  const failIn = (phase: Phase) => {
    const errors = findings.filter((f) => f.severity === 'error' && f.phase === phase)
    if (errors.length === 0) return false
    report.failedPhase = phase
    const messages = [...new Set(errors.map((f) => f.message))]
    // The flag library stops at the first parse error; validation phases aggregate.
    report.serverMessage = phase === 'validate' && messages.length > 1 ? `[${messages.join(', ')}]` : messages[0]
    return true
  }

  if (!failIn('parse') && !failIn('arguments')) {
    const ctx = new ValidationContext(parsed, index, options.target ?? 'client')
    report.context = ctx
    for (const [phase, rules] of PHASES) {
      runRules(phase === 'validate' && cluster ? [...rules, ...clusterRules] : rules, ctx, findings)
      if (failIn(phase)) break
    }
    if (options.profile === 'cis') {
      report.cis = runCisProfile(ctx)
      for (const result of report.cis) if (result.finding) findings.push(result.finding)
    }
  }
  report.valid = !findings.some((f) => f.severity === 'error')
  return report
}
