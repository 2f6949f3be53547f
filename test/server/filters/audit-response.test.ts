/**
 * The moments the audit filter records of a response (audit-response.ts): the status once at the
 * first of writeHead/flushHeaders/write/end, the end once (or the connection's close first), the
 * response written unchanged; a response watched twice tells both watchers, as two wrappings would.
 */
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import type { ResponseMoments } from '../../../src/server/filters/audit-response.js'
import { watchResponse } from '../../../src/server/filters/audit-response.js'
import type { Response } from '../../../src/server/http/types.js'

class FakeResponse extends EventEmitter {
  statusCode = 200
  readonly calls: string[] = []
  writeHead(code: number) {
    this.calls.push(`writeHead ${code}`)
    return this
  }
  flushHeaders() {
    this.calls.push('flushHeaders')
  }
  write(chunk: string) {
    this.calls.push(`write ${chunk}`)
    return true
  }
  end(chunk?: string) {
    // As Node's end, which writes the head itself when nobody did.
    this.writeHead(this.statusCode)
    this.calls.push(`end ${chunk ?? ''}`)
    return this
  }
}

function recorder(seen: string[], name: string): ResponseMoments {
  return { onStart: (code) => seen.push(`${name} start ${code}`), onEnd: () => seen.push(`${name} end`), onWritten: () => seen.push(`${name} written`) }
}

describe('audit response moments', () => {
  it('tells the status once, each write, and the end once, and writes the response unchanged', () => {
    const res = new FakeResponse()
    const seen: string[] = []
    watchResponse(res as unknown as Response, recorder(seen, 'a'))
    res.writeHead(201)
    res.write('x')
    res.end('y')
    res.emit('close')
    assert.deepEqual(seen, ['a start 201', 'a written', 'a end'])
    assert.deepEqual(res.calls, ['writeHead 201', 'write x', 'writeHead 200', 'end y'])
  })

  it('ends at the connection close when the response never ended', () => {
    const res = new FakeResponse()
    const seen: string[] = []
    watchResponse(res as unknown as Response, recorder(seen, 'a'))
    res.emit('close')
    res.emit('close')
    assert.deepEqual(seen, ['a end'])
  })

  it('keeps the state of each response apart', () => {
    const [one, two] = [new FakeResponse(), new FakeResponse()]
    const seen: string[] = []
    watchResponse(one as unknown as Response, recorder(seen, 'one'))
    watchResponse(two as unknown as Response, recorder(seen, 'two'))
    two.statusCode = 404
    two.end()
    one.flushHeaders()
    one.end()
    assert.deepEqual(seen, ['two start 404', 'two end', 'one start 200', 'one end'])
  })

  it('tells both watchers of a response watched twice', () => {
    const res = new FakeResponse()
    const seen: string[] = []
    watchResponse(res as unknown as Response, recorder(seen, 'a'))
    watchResponse(res as unknown as Response, recorder(seen, 'b'))
    res.end('z')
    assert.deepEqual(seen, ['a start 200', 'b start 200', 'a end', 'b end'])
    assert.deepEqual(res.calls, ['writeHead 200', 'end z'])
  })
})
