import assert from 'node:assert/strict'
import { ServerResponse, IncomingMessage } from 'node:http'
import { Socket } from 'node:net'
import { addWarnings, warningHeaderValue } from '../../../src/server/http/warnings.js'

function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()))
}

const header = (res: ServerResponse) => res.getHeader('Warning') as string[]
const wire = (value: string) => Buffer.from(value, 'latin1').toString('utf8')

describe('server/http/warnings: Warning headers as the reference writes them', () => {
  it('sends the UTF-8 bytes of a text that is not Latin-1 (Node would refuse the string)', () => {
    const res = response()
    addWarnings(res, ['unknown field "ключ"'])
    const [value] = header(res)
    assert.equal(wire(value!), '299 - "unknown field \\"ключ\\""')
    // Every character of the header string is a byte: setHeader and the wire accept it.
    assert.ok([...value!].every((c) => c.charCodeAt(0) <= 0xff))
    assert.doesNotThrow(() => res.writeHead(201))
  })

  it('quotes like net.NewWarningHeader (only " and \\ escaped) and blanks control characters', () => {
    assert.equal(warningHeaderValue('a"b\\c'), '299 - "a\\"b\\\\c"')
    assert.equal(warningHeaderValue('line\nbreak\u0000'), '299 - "line break "')
    assert.equal(warningHeaderValue('tab\tkept'), '299 - "tab\tkept"')
  })

  it('deduplicates, and past 4,096 characters cuts each text to 256 and leaves the rest out', () => {
    const res = response()
    addWarnings(res, ['same', 'same'])
    assert.equal(header(res).length, 1)
    const long = Array.from({ length: 40 }, (_, i) => `${i}:${'x'.repeat(500)}`)
    addWarnings(res, long)
    const values = header(res).map(wire)
    assert.ok(values.length < 41)
    const texts = values.map((v) => v.slice('299 - "'.length, -1))
    assert.ok(texts.every((t) => [...t].length <= 256))
    assert.ok(texts.reduce((n, t) => n + [...t].length, 0) <= 4096)
  })

  it('drops a text that is not valid UTF-8 (a lone surrogate), as the reference does', () => {
    const res = response()
    addWarnings(res, ['bad \ud800 text'])
    assert.equal(res.getHeader('Warning'), undefined)
  })
})
