import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CsvError, parseCsv, readTokenFile, tokenFileAuthenticator } from '../../../src/server/authentication/token-file.js'
import { AuthenticationConfigError } from '../../../src/server/authentication/authenticator.js'

describe('authentication: token file', () => {
  let dir: string
  before(() => (dir = mkdtempSync(join(tmpdir(), 'token-file-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string, text: string) => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }

  describe('parseCsv (Go encoding/csv rules)', () => {
    it('reads quoted fields with commas, doubled quotes and line breaks, and skips empty lines', () => {
      assert.deepEqual(parseCsv('a,b,"c,d"\r\n\n"x""y",z,"multi\nline"\n'), [
        { line: 1, fields: ['a', 'b', 'c,d'] },
        { line: 3, fields: ['x"y', 'z', 'multi\nline'] },
      ])
    })
    it('keeps spaces and empty fields', () => {
      assert.deepEqual(parseCsv(' a ,,c'), [{ line: 1, fields: [' a ', '', 'c'] }])
    })
    it('refuses a bare quote and an unterminated quoted field with the line and column', () => {
      assert.throws(() => parseCsv('ok,1,2\nab"c,1,2\n'), new CsvError('parse error on line 2, column 3: bare " in non-quoted-field'))
      assert.throws(() => parseCsv('a,"b\nc'), /^CsvError: record on line 1; parse error on line 2, column \d+: extraneous or missing " in quoted-field$/)
      assert.throws(() => parseCsv('a,"b"c,d'), /^CsvError: parse error on line 1, column \d+: extraneous or missing " in quoted-field$/)
    })
  })

  it('maps each token to its user, uid and groups; extra columns are ignored', async () => {
    const tokens = readTokenFile(file('ok.csv', 'tok1,alice,1,"a,b"\ntok2,bob,2\ntok3,carol,3,,extra\n'))
    const auth = tokenFileAuthenticator(tokens)
    const ctx = { audiences: [], path: '/' }
    assert.deepEqual(await auth.authenticateToken('tok1', ctx), { user: { name: 'alice', uid: '1', groups: ['a', 'b'] } })
    assert.deepEqual(await auth.authenticateToken('tok2', ctx), { user: { name: 'bob', uid: '2', groups: [] } })
    assert.deepEqual(await auth.authenticateToken('tok3', ctx), { user: { name: 'carol', uid: '3', groups: [''] } })
    assert.equal(await auth.authenticateToken('tok', ctx), null)
  })

  it('warns about empty and repeated tokens as the reference does; the last record wins', () => {
    const path = file('dup.csv', ',x,1\nt,first,1\nt,second,2\n')
    const tokens = readTokenFile(path)
    assert.deepEqual(tokens.warnings, [
      `empty token has been found in token file '${path}', record number '1'`,
      `duplicate token has been found in token file '${path}', record number '3'`,
    ])
    assert.equal(tokens.tokens.get('t')?.name, 'second')
  })

  it('refuses short records and unreadable files naming the file (and the line)', () => {
    const path = file('short.csv', 'a,b,c\n\nd,e\n')
    assert.throws(
      () => readTokenFile(path),
      new AuthenticationConfigError(`--token-auth-file: token file '${path}' must have at least 3 columns (token, user name, user uid), found 2 (line 3)`),
    )
    assert.throws(() => readTokenFile(join(dir, 'missing.csv')), (err: Error) => err instanceof AuthenticationConfigError && /open .*missing\.csv: no such file or directory/.test(err.message))
  })
})
