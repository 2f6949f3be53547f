/**
 * `-o sarif`: SARIF 2.1.0 for code-scanning annotations (GitHub's upload-sarif and others). One
 * run; one rule per Status reason met (`Invalid`, `Forbidden`, `BadRequest` ...; `Input` for a
 * document that could not be read; `Warning` for the server's warnings); one result per error
 * or warning, at the document's first line. Paths are as given, with forward slashes, relative
 * to the working directory (the repository root in CI); standard input has no location.
 */
import { type ObjectReport, type ValidationReport, locationOf } from './report.js'

const SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json'

/** What each rule means, for the rule's short description. */
const RULE_TEXT: Record<string, string> = {
  Invalid: 'The object does not pass the API server validation of its kind.',
  Forbidden: 'An admission plugin or policy refuses the object.',
  BadRequest: 'The server cannot decode the object (unknown or duplicate fields, wrong types).',
  NotFound: 'The object refers to something that does not exist (its namespace, a kind).',
  AlreadyExists: 'The input holds this object twice.',
  Input: 'The document cannot be read as a Kubernetes object.',
  Warning: 'The server accepts the object with a warning.',
}

export function reportSarif(report: ValidationReport, tool: { name: string; version: string }): string {
  const rules = new Map<string, number>()
  const ruleIndex = (id: string) => {
    if (!rules.has(id)) rules.set(id, rules.size)
    return rules.get(id)!
  }
  const results: unknown[] = []
  for (const o of report.objects) {
    if (o.error !== undefined) {
      const id = o.reason || 'Error'
      results.push(result(o, id, ruleIndex(id), 'error', o.error))
    }
    for (const w of o.warnings) results.push(result(o, 'Warning', ruleIndex('Warning'), 'warning', w))
  }
  const log = {
    $schema: SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            informationUri: 'https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run',
            rules: [...rules.keys()].map((id) => ({ id, name: id, shortDescription: { text: RULE_TEXT[id] ?? `The server refuses the object (${id}).` } })),
          },
        },
        results,
      },
    ],
  }
  return `${JSON.stringify(log, null, 2)}\n`
}

function result(o: ObjectReport, ruleId: string, ruleIndex: number, level: 'error' | 'warning', text: string) {
  const what = o.kind !== undefined ? `${o.kind}${o.name ? ` "${o.name}"` : ''}` : locationOf(o)
  return {
    ruleId,
    ruleIndex,
    level,
    message: { text: `${what}: ${text}` },
    ...(o.source === 'STDIN'
      ? {}
      : {
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeURI(o.source.replace(/\\/g, '/').replace(/^\.\//, '')) },
                ...(o.line !== undefined ? { region: { startLine: o.line } } : {}),
              },
            },
          ],
        }),
    partialFingerprints: { objectLocation: `${locationOf(o)}:${o.kind ?? ''}/${o.namespace ?? ''}/${o.name ?? ''}` },
  }
}
