/**
 * A validation rule: one check of the reference server (or of the spec) with its id and the
 * phase in which the reference runs it. Rules report through a Reporter that fills in both.
 */
import type { ValidationContext } from './context.js'
import { type Finding, type Phase, type Severity, finding } from './finding.js'

export type Extra = Partial<Pick<Finding, 'option' | 'value' | 'remedy'>>

export interface Reporter {
  error(message: string, extra?: Extra): void
  warning(message: string, extra?: Extra): void
  notice(message: string, extra?: Extra): void
}

export interface Rule {
  id: string
  phase: Phase
  check(ctx: ValidationContext, report: Reporter): void
}

export function runRules(rules: readonly Rule[], ctx: ValidationContext, into: Finding[]): void {
  for (const rule of rules) {
    const push = (severity: Severity) => (message: string, extra: Extra = {}) =>
      into.push(finding(severity, rule.id, rule.phase, message, extra))
    rule.check(ctx, { error: push('error'), warning: push('warning'), notice: push('notice') })
  }
}

/** Shorthand for a rule on one option: `opt` is its name, `--name` in messages. */
export function opt(name: string): string {
  return `--${name}`
}
