/** The two outputs of `client flags validate`: text for people, JSON for machines. */
import type { CisResult } from './cis.js'
import type { Finding } from './finding.js'
import type { ValidationReport } from './validate.js'

/** Identifies the JSON document's shape; bumped only on incompatible changes. */
export const REPORT_SCHEMA = 'client.flags.validate/v1'

interface JsonReport {
  schema: typeof REPORT_SCHEMA
  valid: boolean
  strict: boolean
  target: string
  failedPhase: string | null
  serverMessage: string | null
  errors: Finding[]
  warnings: Finding[]
  notices: Finding[]
  cis?: Array<Omit<CisResult, 'finding'>>
}

/** Whether the verdict is a pass: no errors, and with `strict` no warnings either. */
export function passes(report: ValidationReport, strict: boolean): boolean {
  return report.valid && !(strict && report.findings.some((f) => f.severity === 'warning'))
}

export function toJson(report: ValidationReport, strict: boolean, target: string): JsonReport {
  const of = (severity: Finding['severity']) => report.findings.filter((f) => f.severity === severity)
  return {
    schema: REPORT_SCHEMA,
    valid: passes(report, strict),
    strict,
    target,
    failedPhase: report.failedPhase ?? null,
    serverMessage: report.serverMessage ?? null,
    errors: of('error'),
    warnings: of('warning'),
    notices: of('notice'),
    ...(report.cis ? { cis: report.cis.map(({ finding: _finding, ...rest }) => rest) } : {}),
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function describe(f: Finding): string[] {
  const label = f.severity === 'notice' ? 'note' : f.severity
  const lines = [`${label}: ${f.message}`]
  const where = [f.option && `option ${f.option}${f.value !== undefined && f.value !== '' ? `=${f.value}` : ''}`, `rule ${f.rule}`]
  lines.push(`  ${where.filter(Boolean).join(', ')}`)
  if (f.remedy) lines.push(`  fix: ${f.remedy}`)
  return lines
}

export function toText(report: ValidationReport, strict: boolean): string {
  const errors = report.findings.filter((f) => f.severity === 'error')
  const warnings = report.findings.filter((f) => f.severity === 'warning')
  const notices = report.findings.filter((f) => f.severity === 'notice')
  const lines: string[] = []
  for (const f of [...errors, ...warnings, ...notices]) lines.push(...describe(f))
  if (report.cis) {
    const count = (v: string) => report.cis!.filter((r) => r.verdict === v).length
    lines.push(`CIS benchmark (API server): ${count('PASS')} pass, ${count('FAIL')} fail, ${count('WARN')} warn`)
  }
  if (report.serverMessage) lines.push(`The server would refuse to start with: ${report.serverMessage}`)
  const verdict = passes(report, strict) ? 'valid' : 'invalid'
  const why = !report.valid ? '' : verdict === 'invalid' ? ' (--strict: warnings fail)' : ''
  lines.push(`${verdict}${why}: ${plural(errors.length, 'error')}, ${plural(warnings.length, 'warning')}`)
  return lines.join('\n') + '\n'
}
