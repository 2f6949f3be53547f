/**
 * `-o sarif` against the official SARIF 2.1.0 schema (test/fixtures/validate/sarif-schema-2.1.0.json,
 * from oasis-tcs/sarif-spec, sarif-2.1/schema/), with the project's own draft-04 validator; and
 * the validator itself refuses what the schema refuses, so a pass means something.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { reportSarif } from '../../../src/core/validate/sarif.js'
import type { ValidationReport } from '../../../src/core/validate/report.js'
import { validateJsonSchema } from '../../support/json-schema.js'

const SCHEMA = JSON.parse(readFileSync(new URL('../../fixtures/validate/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as Record<string, unknown>

const REPORT: ValidationReport = {
  objects: [
    { source: 'deploy/web.yaml', document: 2, line: 14, apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default', error: 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0', reason: 'Invalid', warnings: [] },
    { source: 'STDIN', document: 1, kind: 'Pod', name: 'p', error: 'Error from server (Forbidden): error when creating "STDIN": pods "p" is forbidden: violates PodSecurity', reason: 'Forbidden', warnings: ['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)'] },
    { source: 'deploy dir/ok.yaml', document: 1, line: 1, kind: 'ConfigMap', name: 'c', warnings: [] },
  ],
}

describe('validate -o sarif', () => {
  it('is a SARIF 2.1.0 log by the official schema, one result per error and warning, located at the document', () => {
    const log = JSON.parse(reportSarif(REPORT, { name: 'client', version: '0.1.0' }))
    assert.deepEqual(validateJsonSchema(SCHEMA, log), [])
    const results = log.runs[0].results
    assert.equal(results.length, 3)
    assert.deepEqual(results.map((r: { level: string; ruleId: string }) => [r.level, r.ruleId]), [['error', 'Invalid'], ['error', 'Forbidden'], ['warning', 'Warning']])
    assert.deepEqual(results[0].locations[0].physicalLocation, { artifactLocation: { uri: 'deploy/web.yaml' }, region: { startLine: 14 } })
    assert.equal(results[1].locations, undefined, 'standard input has no location')
    assert.deepEqual(log.runs[0].tool.driver.rules.map((r: { id: string }) => r.id), ['Invalid', 'Forbidden', 'Warning'])
  })

  it('the schema check fails on what the schema refuses (a wrong level, a missing message, an extra field)', () => {
    const log = JSON.parse(reportSarif(REPORT, { name: 'client', version: '0.1.0' }))
    log.runs[0].results[0].level = 'fatal'
    delete log.runs[0].results[1].message
    log.runs[0].extra = true
    const problems = validateJsonSchema(SCHEMA, log)
    assert.ok(problems.some((p) => p.includes('"fatal" is not one of')), problems.join('\n'))
    assert.ok(problems.some((p) => p.includes('"message" is required')), problems.join('\n'))
    assert.ok(problems.some((p) => p.includes('"extra" is not allowed')), problems.join('\n'))
  })
})
