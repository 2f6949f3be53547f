import assert from 'node:assert/strict'
import { parseWarningHeaders, warningTexts } from '../../../src/core/client/warning-header.js'

describe('core/client: Warning headers', () => {
  it('reads code, agent and quoted text', () => {
    assert.deepEqual(parseWarningHeaders(['299 - "unknown field \\"spec.foo\\""']), [{ code: 299, agent: '-', text: 'unknown field "spec.foo"' }])
  })

  it('reads several warnings in one header, with or without a date, commas inside text kept', () => {
    const header = '299 - "first, with a comma", 299 kube-apiserver "second" "Sat, 21 Nov 2026 10:00:00 GMT" , 199 agent "misc"'
    assert.deepEqual(parseWarningHeaders([header]), [
      { code: 299, agent: '-', text: 'first, with a comma' },
      { code: 299, agent: 'kube-apiserver', text: 'second' },
      { code: 199, agent: 'agent', text: 'misc' },
    ])
  })

  it('keeps code-299 texts that are not empty, in header order', () => {
    assert.deepEqual(warningTexts(['299 - "a"', '199 - "not shown"', '299 - ""', '299 - "b", 299 - "c"']), ['a', 'b', 'c'])
  })

  it('stops at a malformed warning, keeping the ones before it', () => {
    assert.deepEqual(warningTexts(['299 - "ok" junk, 299 - "lost"']), [])
    assert.deepEqual(warningTexts(['299 - "ok", nonsense', '299 - "next header"']), ['ok', 'next header'])
    assert.deepEqual(warningTexts(['29 - "short code"', '299 -', '299 - "unterminated', '299 - no-quotes']), [])
    assert.deepEqual(warningTexts(['299 - "ok" "unterminated date']), [])
  })

  it('refuses control characters in the text', () => {
    assert.deepEqual(warningTexts(['299 - "bell\u0007"']), [])
  })
})
