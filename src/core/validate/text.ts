/**
 * The default output: for each object with something to say, its location and kubectl's text
 * (`deploy.yaml#2: The Deployment "web" is invalid: ...`, `...: Warning: <text>` for a warning),
 * then a closing count. A multi-line message (kubectl's list of causes) keeps its lines.
 */
import { type ValidationReport, errorCount, locationOf, warningCount } from './report.js'

export function reportText(report: ValidationReport): string {
  const lines: string[] = []
  for (const o of report.objects) {
    for (const w of o.warnings) lines.push(`${locationOf(o)}: Warning: ${w}`)
    if (o.error !== undefined) lines.push(`${locationOf(o)}: ${o.error}`)
  }
  const errors = errorCount(report)
  const warnings = warningCount(report)
  lines.push(`${report.objects.length} ${plural(report.objects.length, 'object')}: ${errors} ${plural(errors, 'error')}, ${warnings} ${plural(warnings, 'warning')}`)
  return `${lines.join('\n')}\n`
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`)
