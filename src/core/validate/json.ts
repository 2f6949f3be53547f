/** `-o json`: every object with its outcome, and the counts. */
import { type ValidationReport, errorCount, warningCount } from './report.js'

export function reportJson(report: ValidationReport, warningsAsErrors: boolean): string {
  const errors = errorCount(report)
  const warnings = warningCount(report)
  return `${JSON.stringify(
    {
      valid: errors === 0 && !(warningsAsErrors && warnings > 0),
      errors,
      warnings,
      objects: report.objects.map((o) => ({
        source: o.source,
        document: o.document,
        ...(o.line !== undefined ? { line: o.line } : {}),
        ...(o.apiVersion !== undefined ? { apiVersion: o.apiVersion } : {}),
        ...(o.kind !== undefined ? { kind: o.kind } : {}),
        ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
        ...(o.name !== undefined ? { name: o.name } : {}),
        valid: o.error === undefined,
        ...(o.error !== undefined ? { reason: o.reason, error: o.error } : {}),
        warnings: o.warnings,
      })),
    },
    null,
    2,
  )}\n`
}
