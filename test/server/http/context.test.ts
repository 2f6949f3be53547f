import assert from 'node:assert/strict'
import { IncomingContext } from '../../../src/server/http/context.js'
import type { Request } from '../../../src/server/http/types.js'

const context = (target: string) => new IncomingContext({ method: 'GET', headers: {} } as unknown as Request, target, target.split(/[?#]/, 1)[0]!)

describe('server/http/context: the raw query of a request target', () => {
  it('is what follows the first `?`, up to the first `#` after it', () => {
    assert.equal(context('/readyz').rawQuery, '')
    assert.equal(context('/readyz?verbose').rawQuery, 'verbose')
    assert.equal(context('/readyz?verbose&exclude=etcd#frag').rawQuery, 'verbose&exclude=etcd')
    assert.equal(context('/readyz?a=?b#c#d').rawQuery, 'a=?b')
    assert.equal(context('/readyz?').rawQuery, '')
    assert.equal(context('/readyz?#x').rawQuery, '')
  })

  it('a `#` before the `?` does not end the query (the query starts at the `?` as before)', () => {
    assert.equal(context('/readyz#x?y').rawQuery, 'y')
  })

  it('the URL is parsed only when read, and its query agrees with the raw query', () => {
    const ctx = context('/api/v1/pods?watch=1&timeout=5s')
    assert.equal(ctx.url.searchParams.get('watch'), '1')
    assert.equal(ctx.url.searchParams.get('timeout'), '5s')
  })
})
