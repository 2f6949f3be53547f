/** The Warning headers the server writes (http/warnings.ts) read back as kubectl prints them. */
import assert from 'node:assert/strict'
import { warningHeaderValue } from '../../../src/server/http/warnings.js'
import { warningTexts } from '../../../src/server/offline/warning-headers.js'

describe('offline dry-run server: Warning headers', () => {
  it('gives back each text the server wrote: quotes, backslashes and non-ASCII included', () => {
    const texts = ['would violate PodSecurity "restricted:latest": host namespaces (hostNetwork=true)', 'a \\ backslash', 'größe: 5 €']
    assert.deepEqual(warningTexts(texts.map(warningHeaderValue)), texts)
    assert.deepEqual(warningTexts(warningHeaderValue('one')), ['one'])
    assert.deepEqual(warningTexts(undefined), [])
  })
})
