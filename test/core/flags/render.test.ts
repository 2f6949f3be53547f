/**
 * The two outputs of `client flags validate`: the JSON document (schema client.flags.validate/v1)
 * and the text report, and the pass/fail verdict with and without --strict.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'mocha'

import { REPORT_SCHEMA, passes, toJson, toText } from '../../../src/core/flags/render.js'
import { validateServerCommandLine } from '../../../src/core/flags/validate.js'
import { B, H } from './support.js'

/** B with an explicit AlwaysAllow and no anonymous access: one warning (AUTHZ-DEFAULT), now that Node,RBAC is the default. */
const B_ALWAYS_ALLOW = [...B, '--authorization-mode=AlwaysAllow', '--anonymous-auth=false']

const JSON_KEYS = ['schema', 'valid', 'strict', 'target', 'failedPhase', 'serverMessage', 'errors', 'warnings', 'notices']

describe('flags validate: report rendering', () => {
  it('JSON: the schema id, the keys in order, and findings sorted by severity', () => {
    const report = validateServerCommandLine([...B_ALWAYS_ALLOW, '--secure-port=0'])
    const json = toJson(report, false, 'client')
    assert.equal(REPORT_SCHEMA, 'client.flags.validate/v1')
    assert.deepEqual(Object.keys(json), JSON_KEYS)
    assert.equal(json.schema, 'client.flags.validate/v1')
    assert.equal(json.valid, false)
    assert.equal(json.strict, false)
    assert.equal(json.target, 'client')
    assert.equal(json.failedPhase, 'validate')
    assert.equal(json.serverMessage, '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0')
    assert.deepEqual(json.errors, [
      {
        severity: 'error',
        rule: 'SEC-1',
        phase: 'validate',
        message: '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
        option: '--secure-port',
        value: '0',
        remedy: 'choose a port from 1 to 65535 (default 6443)',
      },
    ])
    assert.deepEqual(json.warnings.map((f) => f.rule), ['AUTHZ-DEFAULT'])
    assert.deepEqual(json.notices.map((f) => f.rule), ['ALIAS', 'NET-1'])
  })

  it('JSON: a valid line has null failedPhase and serverMessage', () => {
    const json = toJson(validateServerCommandLine(H), false, 'reference')
    assert.equal(json.valid, true)
    assert.equal(json.failedPhase, null)
    assert.equal(json.serverMessage, null)
    assert.equal(json.target, 'reference')
    assert.deepEqual(json.errors, [])
    assert.equal('cis' in json, false)
  })

  it('JSON: --strict makes a line with warnings invalid', () => {
    const report = validateServerCommandLine(B_ALWAYS_ALLOW)
    assert.equal(toJson(report, false, 'client').valid, true)
    const strict = toJson(report, true, 'client')
    assert.equal(strict.valid, false)
    assert.equal(strict.strict, true)
    assert.equal(passes(report, true), false)
    assert.equal(passes(validateServerCommandLine(H), true), true)
  })

  it('JSON: the CIS results without their internal finding', () => {
    const json = toJson(validateServerCommandLine(H, { profile: 'cis' }), false, 'client')
    assert.equal(json.cis?.length, 31)
    assert.deepEqual(json.cis?.[0], { id: '1.2.1', title: 'anonymous requests are disabled', type: 'Manual', verdict: 'PASS', remedy: 'add --anonymous-auth=false' })
    assert.ok(json.cis!.every((r) => !('finding' in r)))
    assert.deepEqual(json.warnings.map((f) => f.rule), ['CIS-1.2.20', 'CIS-1.2.28'])
  })

  it('text: each finding with its option, rule and fix; the server message; the verdict line', () => {
    const text = toText(validateServerCommandLine(['--authorization-mode=Node,RBAC', '--secure-port=0']), false)
    const lines = text.split('\n')
    assert.deepEqual(lines.slice(0, 3), [
      'error: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0',
      '  option --secure-port=0, rule SEC-1',
      '  fix: choose a port from 1 to 65535 (default 6443)',
    ])
    assert.ok(lines.includes('The server would refuse to start with: --secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0'), text)
    assert.equal(lines.at(-2), 'invalid: 1 error, 0 warnings')
    assert.equal(lines.at(-1), '')
  })

  it('text: the strict verdict and the CIS summary', () => {
    assert.equal(toText(validateServerCommandLine(B_ALWAYS_ALLOW), true).trimEnd().split('\n').at(-1), 'invalid (--strict: warnings fail): 0 errors, 1 warning')
    assert.equal(toText(validateServerCommandLine(B_ALWAYS_ALLOW), false).trimEnd().split('\n').at(-1), 'valid: 0 errors, 1 warning')
    const cis = toText(validateServerCommandLine(H, { profile: 'cis' }), false).trimEnd().split('\n')
    assert.ok(cis.includes('CIS benchmark (API server): 29 pass, 0 fail, 2 warn'), cis.join('\n'))
    assert.equal(cis.at(-1), 'valid: 0 errors, 2 warnings')
  })
})
