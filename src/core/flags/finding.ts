/**
 * One result of checking a server command line. Errors stop a server from starting;
 * warnings do not (unless --strict); notices only inform (aliases, the effective defaults).
 */
export type Severity = 'error' | 'warning' | 'notice'

/**
 * The reference server's phases, in order: a failing phase stops the later ones.
 * `cis` findings come from the security-posture profile, not from the server.
 */
export type Phase = 'parse' | 'arguments' | 'versions' | 'logging' | 'complete' | 'validate' | 'config' | 'cis'

export interface Finding {
  severity: Severity
  /** Rule id, e.g. `SEC-1`, `PARSE-UNKNOWN`, or a CIS check id such as `CIS-1.2.15`. */
  rule: string
  phase: Phase
  /** The option concerned, with dashes (`--secure-port`), when one is. */
  option?: string
  /** The value concerned, as given. */
  value?: string
  /** The message, in the reference's words where the reference has one. */
  message: string
  /** What to do about it, when there is something to do. */
  remedy?: string
}

export function finding(
  severity: Severity,
  rule: string,
  phase: Phase,
  message: string,
  extra: Partial<Pick<Finding, 'option' | 'value' | 'remedy'>> = {},
): Finding {
  return { severity, rule, phase, message, ...extra }
}
