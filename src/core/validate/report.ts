/**
 * What `client validate` found, object by object, in the input's order: the server's answer to
 * creating it (accepted, or refused with kubectl's text of the error), the Warning headers of
 * the answer, and the exit status (1 on any error, and on any warning with
 * --warnings-as-errors).
 */

export interface ObjectReport {
  source: string
  /** The document's position in its source, from 1. */
  document: number
  line?: number
  apiVersion?: string
  kind?: string
  name?: string
  namespace?: string
  /** kubectl's text for the error (`The Deployment "web" is invalid: ...`); absent when accepted. */
  error?: string
  /** The Status reason of a refusal (Invalid, Forbidden, NotFound, BadRequest ...), or `Input` for unreadable input. */
  reason?: string
  /** The answer's Warning headers, as kubectl prints them after `Warning: `. */
  warnings: string[]
}

export interface ValidationReport {
  objects: ObjectReport[]
}

export function errorCount(report: ValidationReport): number {
  return report.objects.filter((o) => o.error !== undefined).length
}

export function warningCount(report: ValidationReport): number {
  return report.objects.reduce((n, o) => n + o.warnings.length, 0)
}

export function exitCode(report: ValidationReport, warningsAsErrors: boolean): number {
  if (errorCount(report) > 0) return 1
  return warningsAsErrors && warningCount(report) > 0 ? 1 : 0
}

/** Where an object is: `deploy.yaml#2` (the document's position, from 1). */
export function locationOf(o: Pick<ObjectReport, 'source' | 'document'>): string {
  return `${o.source}#${o.document}`
}
